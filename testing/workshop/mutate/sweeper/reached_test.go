package sweeper

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"example.com/operator-demo/testing/workshop/mutate/sweep"
)

// toyCode is a sweeper of the toy's code, judged by its own unit tests, built with every break.
func toyCode(t *testing.T) (*sweeper, *built) {
	t.Helper()
	s := &sweeper{root: filepath.Join("..", "..", "testdata", "toy"), work: t.TempDir(), group: group{dirs: []string{"code"}, tests: []string{"./code"}}, started: time.Now()}
	b, err := s.build(Selection{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.breaks) != 2 || slices.Contains(b.schema.Switched, false) {
		t.Fatalf("the toy's code has %d breaks, switched %v; want its two, each switched", len(b.breaks), b.schema.Switched)
	}
	return s, b
}

// TestASpecAloneFailsAgainstABreakItReachesOrNone: a spec tried alone runs against the breaks its
// run reaches and no other; one that checks what it builds fails against the break of it, named
// with where it failed; one that checks nothing fails against none.
func TestASpecAloneFailsAgainstABreakItReachesOrNone(t *testing.T) {
	s, b := toyCode(t)
	reached, tried, err := s.failsAlone(b, Spec{"./code", "TestGreetingNamesItsName"})
	if err != nil {
		t.Fatal(err)
	}
	if reached != 1 || len(tried) != 1 || !tried[0].Killed() || tried[0].Killer != "TestGreetingNamesItsName" || tried[0].Break.Func != "Greeting" || !strings.Contains(tried[0].Where, "code_test.go") {
		t.Errorf("an honest test alone: reached %d, tried %+v; want Greeting's break, killed by the test, where it failed", reached, tried)
	}
	reached, tried, err = s.failsAlone(b, Spec{"./code", "TestGreetingIsBuilt"})
	if err != nil {
		t.Fatal(err)
	}
	if reached != 1 || len(tried) != 1 || tried[0].Killed() || tried[0].Err != "" || tried[0].Break.Func != "Greeting" {
		t.Errorf("a vacuous test alone: reached %d, tried %+v; want Greeting's break tried, surviving", reached, tried)
	}
	if _, _, err := s.failsAlone(b, Spec{"./code", "TestNoSuchTest"}); err == nil || !strings.Contains(err.Error(), "no such test or spec") {
		t.Errorf("a test the sweep does not run: %v, want an error saying so", err)
	}
}

// TestARewrittenSpecsBreaksAreEachKilledByATestThatReachesThem: the breaks a spec reaches are each
// tried against every test that reaches them, as the whole sweep does: a vacuous test whose break
// another test kills leaves no survivor; the only test of a function, vacuous, leaves its break
// alive, reached by it alone.
func TestARewrittenSpecsBreaksAreEachKilledByATestThatReachesThem(t *testing.T) {
	s, b := toyCode(t)
	verdicts, err := s.guarded(b, Spec{"./code", "TestGreetingIsBuilt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(verdicts) != 1 || !verdicts[0].Killed() || verdicts[0].Killer != "TestGreetingNamesItsName" {
		t.Errorf("a vacuous test of a function another test checks: %+v; want its break killed by the other", verdicts)
	}
	verdicts, err = s.guarded(b, Spec{"./code", "TestShoutIsBuilt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(verdicts) != 1 || verdicts[0].Killed() || verdicts[0].Err != "" || verdicts[0].Break.Func != "Shout" || !slices.Equal(verdicts[0].Reach, []string{"TestShoutIsBuilt"}) {
		t.Errorf("the only test of a function, vacuous: %+v; want its break surviving, reached by it alone", verdicts)
	}
}

// TestABreakBuiltOnItsOwnIsReachedWhereItsFunctionRan: a spec reaches the switched breaks its run
// recorded, and those built on their own (no run records them) of a function where it ran another.
func TestABreakBuiltOnItsOwnIsReachedWhereItsFunctionRan(t *testing.T) {
	at := func(file, fn string) sweep.Break { return sweep.Break{File: file, Func: fn} }
	b := &built{
		breaks: []sweep.Break{at("a.go", "f"), at("a.go", "f"), at("a.go", "g"), at("a.go", "g"), at("b.go", "f"), at("a.go", "h")},
		schema: sweep.Schema{Switched: []bool{true, false, true, false, false, true}},
	}
	if got, want := b.reachedBy(test{hits: []string{"1", "6"}}), []int{0, 5, 1}; !slices.Equal(got, want) {
		t.Errorf("reached by a run of breaks 1 and 6: %v, want %v", got, want)
	}
	if got := b.reachedBy(test{}); len(got) != 0 {
		t.Errorf("reached by a run of no break: %v, want none", got)
	}
}

// TestASpecIsItsPackageAndItsName: REACHED_BY is a package, a space, and the spec's full name.
func TestASpecIsItsPackageAndItsName(t *testing.T) {
	got, err := ParseSpec(" ./scenarios Sample when created creates its ConfigMap ")
	if want := (Spec{"./scenarios", "Sample when created creates its ConfigMap"}); err != nil || got != want {
		t.Errorf("ParseSpec = %+v, %v; want %+v", got, err, want)
	}
	for _, text := range []string{"", "TestDesiredStatus", "./controllers", "controllers TestDesiredStatus"} {
		if _, err := ParseSpec(text); err == nil || !strings.Contains(err.Error(), "names no spec") {
			t.Errorf("ParseSpec(%q): %v, want an error saying it names no spec", text, err)
		}
	}
}

// TestTheReportOfASpecAloneNamesTheBreakThatFailsItOrFails: the report names the break that failed
// the spec, and where; with none, it says so and fails.
func TestTheReportOfASpecAloneNamesTheBreakThatFailsItOrFails(t *testing.T) {
	spec := Spec{"./controllers", "TestX"}
	r := sweepReport{Selection: Selection{ReachedBy: spec, Alone: true}, Dirs: []string{"controllers"}, Reached: 3, Verdicts: []Verdict{
		{Break: aBreak(10, `"a"`), Reach: []string{"TestX"}},
		{Break: aBreak(12, `"b"`), Tier: unitTier, Killer: "TestX", Where: "x_test.go:4", Reach: []string{"TestX"}},
	}}
	var out bytes.Buffer
	if err := r.write(&out); err != nil {
		t.Errorf("a spec that a break fails: %v", err)
	}
	if want := "It fails against `controllers/a.go f constant: \"b\" → \"\"` (controllers/a.go:12), at x_test.go:4: 2 of the 3 breaks it reaches tried."; !strings.Contains(out.String(), want) {
		t.Errorf("the report lacks %q:\n%s", want, out.String())
	}
	r.Verdicts = r.Verdicts[:1]
	out.Reset()
	if err := r.write(&out); err == nil || !strings.Contains(err.Error(), "it cannot fail") {
		t.Errorf("a spec that no break fails: %v, want an error saying it cannot fail", err)
	}
	if want := "No break of the 3 it reaches fails it"; !strings.Contains(out.String(), want) {
		t.Errorf("the report lacks %q:\n%s", want, out.String())
	}
}

// TestTheSweepOfASpecsBreaksSaysWhoseTheyAre: the report of the breaks a spec reaches says so in
// its title, and that there are none when it reaches none.
func TestTheSweepOfASpecsBreaksSaysWhoseTheyAre(t *testing.T) {
	r := sweepReport{Selection: Selection{ReachedBy: Spec{"./controllers", "TestX"}}, Dirs: []string{"controllers"}}
	var out bytes.Buffer
	if err := r.write(&out); err != nil || !strings.Contains(out.String(), "No generic break that compiles is reached by ./controllers TestX") {
		t.Errorf("a spec that reaches no break: %v\n%s", err, out.String())
	}
	r.Verdicts = []Verdict{{Break: aBreak(12, `"b"`), Reach: []string{"TestX"}}}
	out.Reset()
	if err := r.write(&out); err == nil || !strings.Contains(out.String(), "# Mutation sweep of controllers, the breaks that ./controllers TestX reaches") {
		t.Errorf("a survivor of the breaks a spec reaches: %v\n%s", err, out.String())
	}
}
