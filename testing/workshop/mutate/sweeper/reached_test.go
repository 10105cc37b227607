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
	funcs := make([]string, 0, len(b.breaks))
	for _, brk := range b.breaks {
		funcs = append(funcs, brk.Func)
	}
	if !slices.Equal(funcs, []string{"Greeting", "Shout", ""}) || slices.Contains(b.schema.Switched, false) {
		t.Fatalf("the toy's code has breaks in %q, switched %v; want Greeting's, Shout's and the package's, each switched", funcs, b.schema.Switched)
	}
	return s, b
}

// byFunc is the verdict on the break of fn ("": the package's), which verdicts must hold once.
func byFunc(t *testing.T, verdicts []Verdict, fn string) Verdict {
	t.Helper()
	i := slices.IndexFunc(verdicts, func(v Verdict) bool { return v.Break.Func == fn })
	if i < 0 || slices.IndexFunc(verdicts[i+1:], func(v Verdict) bool { return v.Break.Func == fn }) >= 0 {
		t.Fatalf("the verdicts do not hold the break of %q once: %+v", fn, verdicts)
	}
	return verdicts[i]
}

// TestASpecAloneFailsAgainstABreakItReachesOrNone: a spec tried alone runs against the breaks its
// run reaches (the package's, run as it starts, among them) and no other; one that checks what it
// builds fails against the break of it, named with where it failed; one that checks nothing fails
// against none. A break that fails the binary before the spec runs says nothing of the spec.
func TestASpecAloneFailsAgainstABreakItReachesOrNone(t *testing.T) {
	s, b := toyCode(t)
	reached, tried, err := s.failsAlone(b, Spec{"./code", "TestGreetingNamesItsName"})
	if err != nil {
		t.Fatal(err)
	}
	if v := byFunc(t, tried, "Greeting"); reached != 2 || !v.Killed() || v.Killer != "TestGreetingNamesItsName" || !strings.Contains(v.Where, "code_test.go") {
		t.Errorf("an honest test alone: reached %d, tried %+v; want Greeting's break among the 2 it reaches, killed by the test, where it failed", reached, tried)
	}
	reached, tried, err = s.failsAlone(b, Spec{"./code", "TestGreetingIsBuilt"})
	if err != nil {
		t.Fatal(err)
	}
	if reached != 2 || len(tried) != 2 || slices.ContainsFunc(tried, Verdict.Killed) {
		t.Errorf("a vacuous test alone: reached %d, tried %+v; want both breaks it reaches tried, neither failing it", reached, tried)
	}
	if v := byFunc(t, tried, ""); !strings.Contains(v.Err, "failed outside the spec") {
		t.Errorf("the break that fails the binary as it starts: %+v, want no verdict, failed outside the spec", v)
	}
	if _, _, err := s.failsAlone(b, Spec{"./code", "TestNoSuchTest"}); err == nil || !strings.Contains(err.Error(), "no such test or spec") {
		t.Errorf("a test the sweep does not run: %v, want an error saying so", err)
	}
}

// TestARewrittenSpecsBreaksAreEachKilledByATestThatReachesThem: the breaks a spec reaches are each
// tried against every test that reaches them, as the whole sweep does: a vacuous test whose break
// another test kills leaves no survivor; the only test of a function, vacuous, leaves its break
// alive, reached by it alone. A break that fails the binary as it starts is noticed, as the whole
// sweep has it.
func TestARewrittenSpecsBreaksAreEachKilledByATestThatReachesThem(t *testing.T) {
	s, b := toyCode(t)
	verdicts, err := s.guarded(b, Spec{"./code", "TestGreetingIsBuilt"})
	if err != nil {
		t.Fatal(err)
	}
	if v := byFunc(t, verdicts, "Greeting"); len(verdicts) != 2 || !v.Killed() || v.Killer != "TestGreetingNamesItsName" {
		t.Errorf("a vacuous test of a function another test checks: %+v; want its break killed by the other", verdicts)
	}
	if v := byFunc(t, verdicts, ""); !v.Killed() || !strings.Contains(v.Where, "panics before any test") {
		t.Errorf("the break that fails the binary as it starts: %+v, want it killed, by a panic", v)
	}
	verdicts, err = s.guarded(b, Spec{"./code", "TestShoutIsBuilt"})
	if err != nil {
		t.Fatal(err)
	}
	if v := byFunc(t, verdicts, "Shout"); len(verdicts) != 2 || v.Killed() || v.Err != "" || !slices.Equal(v.Reach, []string{"TestShoutIsBuilt"}) {
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
