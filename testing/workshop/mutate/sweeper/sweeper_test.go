package sweeper

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"example.com/operator-demo/testing/workshop/mutate/sweep"
	"example.com/operator-demo/testing/workshop/mutate/trial"
)

func aBreak(line int, was string) sweep.Break {
	return sweep.Break{File: "controllers/a.go", Line: line, Func: "f", Operator: sweep.Constant, Was: was, Now: `""`}
}

// TestASurvivorFailsTheSweepNamingItsLineAndWhatReachesIt: the report names each survivor with its
// file:line and the tests and specs that run its code, and the sweep fails naming it.
func TestASurvivorFailsTheSweepNamingItsLineAndWhatReachesIt(t *testing.T) {
	r := sweepReport{Verdicts: []Verdict{
		{Break: aBreak(10, `"a"`), Tier: unitTier, Killer: "TestA", Reach: []string{"TestA"}},
		{Break: aBreak(12, `"b"`), Reach: []string{"TestA", "Sample when created makes it"}},
		{Break: aBreak(14, `"c"`)},
	}, Took: time.Minute}
	var out bytes.Buffer
	err := r.write(&out)
	if err == nil {
		t.Fatal("a sweep with survivors passes")
	}
	for _, want := range []string{"controllers/a.go:12", `constant: "b" → ""`, "Sample when created makes it", "controllers/a.go:14"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the failure does not name %q: %v", want, err)
		}
	}
	for _, want := range []string{"**Score: 1 of 3 breaks killed (33%)**", "| controllers/a.go:12 | f | constant: `\"b\"` → `\"\"` | TestA; Sample when created makes it |", "| controllers/a.go:14 | f | constant: `\"c\"` → `\"\"` | no test reaches its code |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestABaseSweepsOnlyTheLinesChangedSinceIt: given a revision, the sweep keeps only the breaks on
// the lines changed since it (a statement that holds a changed line is on it too), the work tree's
// edits and the files git does not track yet counting; given none, every break.
func TestABaseSweepsOnlyTheLinesChangedSinceIt(t *testing.T) {
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(file, content string) {
		t.Helper()
		path := filepath.Join(root, filepath.FromSlash(file))
		if err := errors.Join(os.MkdirAll(filepath.Dir(path), 0o755), os.WriteFile(path, []byte(content), 0o644)); err != nil {
			t.Fatal(err)
		}
	}
	const a = "package controllers\n\nfunc f(n int) int {\n\tif n > 1 {\n\t\treturn 2\n\t}\n\treturn 3\n}\n"
	write("controllers/a.go", a)
	write("controllers/b.go", "package controllers\n\nconst c = 4\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "the base")
	write("controllers/a.go", strings.Replace(a, "return 2", "return 5", 1)) // line 5, not committed
	write("controllers/new.go", "package controllers\n\nconst d = 6\n")      // not tracked

	kept := func(sel Selection) []string {
		t.Helper()
		keep, err := sel.keeper(root, theOperator.dirs)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, file := range []string{"controllers/a.go", "controllers/b.go", "controllers/new.go"} {
			breaks, err := sweep.Of(root, file)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range breaks {
				if keep(b) {
					out = append(out, fmt.Sprintf("%s:%d %s: %s", b.File, b.Line, b.Operator, b.Was))
				}
			}
		}
		return out
	}
	want := []string{
		"controllers/a.go:4 delete: if n > 1 { return 5 }",
		"controllers/a.go:5 delete: return 5",
		"controllers/a.go:5 constant: 5",
		"controllers/new.go:3 constant: 6",
	}
	if got := kept(Selection{Since: "HEAD"}); !slices.Equal(got, want) {
		t.Errorf("since HEAD, the sweep keeps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := kept(Selection{}); len(got) != 9 {
		t.Errorf("without a revision, the sweep keeps %d breaks, want all 9:\n%s", len(got), strings.Join(got, "\n"))
	}
	if _, err := (Selection{Since: "no-such-revision"}).keeper(root, theOperator.dirs); err == nil || !strings.Contains(err.Error(), "no-such-revision") {
		t.Errorf("an unknown revision: %v, want an error naming it", err)
	}
}

// TestAChangeWithoutABreakSaysSoAndPasses: a change that makes no break says so plainly, and
// passes.
func TestAChangeWithoutABreakSaysSoAndPasses(t *testing.T) {
	r := sweepReport{Selection: Selection{Since: "origin/main"}}
	var out bytes.Buffer
	if err := r.write(&out); err != nil {
		t.Errorf("a change without a break fails: %v", err)
	}
	if want := "No generic break that compiles on the lines changed since origin/main"; !strings.Contains(out.String(), want) {
		t.Errorf("the report does not say %q:\n%s", want, out.String())
	}
}

// TestAHangIsAKillNamedAsATimeout: a break that makes a test that reaches it hang is killed, by
// timeout, and the report names it so; it fails nothing.
func TestAHangIsAKillNamedAsATimeout(t *testing.T) {
	r := sweepReport{Verdicts: []Verdict{
		{Break: aBreak(10, `"a"`), Tier: unitTier, Killer: "TestA", TimedOut: true, Reach: []string{"TestA"}},
		{Break: aBreak(12, `"b"`), Tier: envtestTier, Killer: "Sample when created makes it", TimedOut: true},
		{Break: aBreak(14, `"c"`), Tier: unitTier, Killer: "TestC"},
	}}
	var out bytes.Buffer
	if err := r.write(&out); err != nil {
		t.Errorf("a sweep whose breaks a hang killed fails: %v", err)
	}
	for _, want := range []string{
		"**Score: 3 of 3 breaks killed (100%)**",
		"2 of the kills by timeout",
		"## Killed by timeout",
		"| controllers/a.go:10 | f | constant: `\"a\"` → `\"\"` | killed by unit test TestA (killed by timeout: the run hung past 2m0s) |",
		`| controllers/a.go:12 | f | constant: ` + "`\"b\"` → `\"\"`" + ` | killed by spec "Sample when created makes it" (killed by timeout: the run hung past 2m0s) |`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "controllers/a.go:14 |") {
		t.Errorf("the report names a break killed in time among the timeouts:\n%s", out.String())
	}
}

// TestTheHarnessIsJudgedByItsOwnTests: the harness a team imports is judged by its own tests,
// which its module holds, never by this operator's scenarios, which pass whatever a broken check
// lets through; and only what a team imports is broken.
func TestTheHarnessIsJudgedByItsOwnTests(t *testing.T) {
	harness := theHarness
	if !slices.Contains(harness.tests, "./testing/harness") || slices.Contains(harness.tests, scenarios) {
		t.Errorf("the harness is judged by %q", harness.tests)
	}
	if !slices.Contains(harness.dirs, "testing/harness") || slices.Contains(harness.dirs, "testing/harness/warm") {
		t.Errorf("the harness's sweep breaks %q", harness.dirs)
	}
	if harness.module != "testing" {
		t.Errorf("the harness's module is %q, want testing", harness.module)
	}
}

// TestAGroupWithoutTheScenariosReachesWithoutADryRun: the harness's sweep, judged by unit tests
// alone, runs no Ginkgo dry run, so it reads none.
func TestAGroupWithoutTheScenariosReachesWithoutADryRun(t *testing.T) {
	s := &sweeper{root: t.TempDir(), work: t.TempDir()}
	if all, err := s.reach(); err != nil || len(all) > 0 {
		t.Errorf("reach of a group of no test package = %v, %v; want nothing, no error", all, err)
	}
}

// TestReachRunsEachTestAndSpecAlone: the sweep lists the unit tests (not the benchmarks and
// examples) and the specs that run (not the pending ones), and runs each alone, unbroken.
func TestReachRunsEachTestAndSpecAlone(t *testing.T) {
	s := &sweeper{root: filepath.Join("..", "..", "testdata", "toy"), work: t.TempDir(), group: group{tests: []string{"./unit", scenarios}}}
	if out, err := trial.Build(s.root, s.work, nil, s.group.tests...); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	all, err := s.reach()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, 0, len(all))
	for _, test := range all {
		got = append(got, test.Pkg+" "+test.Name)
	}
	if want := []string{"./unit TestFinishes", "./unit TestHangs", "./scenarios A spec finishes", "./scenarios A spec hangs", "./scenarios A spec reads the toy's manifest"}; !slices.Equal(got, want) {
		t.Errorf("reach lists %q, want %q", got, want)
	}
	if s.description != "Toy" {
		t.Errorf("the suite's description: %q, want Toy", s.description)
	}
}
