// Command mutatesweep makes every generic break of the operator's logic (package sweep: a
// statement deleted, a condition negated, a returned error dropped, a constant replaced), without
// anyone choosing them, and runs the unit tier, then the envtest tier, against each that
// compiles, built in with `go test -overlay`. A break that no test notices is a line that no
// test needs, or a behaviour that no test pins: the report gives the score and every survivor.
// `make mutate-sweep` runs it.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/tools/cover"

	"example.com/operator-demo/testing/workshop/mutate/sweep"
	"example.com/operator-demo/testing/workshop/mutate/trial"
	"example.com/operator-demo/testing/workshop/overlay"
	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
)

// sweepDirs are the directories the sweep breaks: the operator's logic. cmd/ only wires flags.
var sweepDirs = []string{"controllers", "api/v1alpha1"}

// sweepProcs is how many Ginkgo processes run the scenarios against one break. Two breaks are
// tried at once, so two control planes and eight processes share the two cores.
const sweepProcs = 4

// unlinked leaves the symbol table and the debug information out of the test binaries built
// against a break: a third of the link time, and a failure's file:line comes from the runtime's
// own tables, not from them.
const unlinked = "-ldflags=-s -w"

// unvetted skips go test's vet checks: a break of a format string ("" for "sync %s: %w") is
// for vet to flag, and for the tests to notice.
const unvetted = "-vet=off"

// The tiers the sweep runs, as an outcome names the one that killed a break.
const (
	unitTier    = "unit"
	envtestTier = "envtest"
)

func main() {
	only := flag.String("file", "", "break only the files whose path contains this text")
	breakText := flag.String("break", "", "try only the breaks whose ID (file function operator: was → now) contains this text")
	repeat := flag.Int("repeat", 2, "try each break the envtest tier kills this many more times, the whole tier each time")
	flag.Parse()
	if err := run(*only, *breakText, *repeat); err != nil {
		fmt.Fprintln(os.Stderr, "mutate-sweep:", err)
		os.Exit(1)
	}
}

// outcome is what the tiers said about one break.
type outcome struct {
	// tier killed it (unitTier or envtestTier; "" if it survived), and how.
	tier string
	v    trial.Verdict
	// kills of runs of the envtest tier, and the specs that killed it.
	kills, runs int
	killers     []string
	// err is why the tiers could not say (a run that proved nothing).
	err error
	// reached says a test ran its line (from the unmutated run's coverage).
	reached bool
}

// run makes every generic break of sweepDirs (those in files whose path contains only),
// and runs the unit tier, then the envtest tier, against each that compiles; a spec that kills a
// break in the envtest tier is run repeat times more against it, since a kill that depends on
// timing may not happen every time. The report lists every survivor.
func run(only, breakText string, repeat int) error {
	start := time.Now()
	root, err := repo.Root()
	if err != nil {
		return err
	}
	// The scenario binaries run inside the tree, where the harness finds go.mod.
	work, err := os.MkdirTemp(filepath.Join(root, "bin"), "mutate-sweep-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()

	breaks, notCompiled, err := compilingBreaks(root, only, breakText)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "sweep: %d breaks compile (%d do not); the tiers, unbroken, with coverage\n", len(breaks), notCompiled)
	unitCover, envtestCover, err := baseline(root, work)
	if err != nil {
		return fmt.Errorf("without any break: %w", err)
	}

	outcomes := make([]outcome, len(breaks))
	var done atomic.Int32
	var g errgroup.Group
	g.SetLimit(trial.Workers)
	for i, b := range breaks {
		g.Go(func() error {
			o, err := try(root, filepath.Join(work, strconv.Itoa(i)), b, reaches(unitCover, b), reaches(envtestCover, b), repeat)
			if err != nil {
				o = outcome{err: err}
			}
			outcomes[i] = o
			fmt.Fprintf(os.Stderr, "sweep %d/%d (%.0f s): %s:%d %s %s → %s: %s\n", done.Add(1), len(breaks), time.Since(start).Seconds(), b.File, b.Line, b.Operator, b.Was, b.Now, o)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return report(breaks, outcomes, notCompiled, repeat, only, time.Since(start))
}

// compilingBreaks makes the breaks of the files under sweepDirs whose path contains only, keeps
// those whose ID contains breakText and compile, and says how many of those do not compile.
func compilingBreaks(root, only, breakText string) ([]sweep.Break, int, error) {
	files, err := sweep.Files(root, sweepDirs...)
	if err != nil {
		return nil, 0, err
	}
	checker, err := sweep.NewChecker(root, sweepDirs...)
	if err != nil {
		return nil, 0, err
	}
	var out []sweep.Break
	notCompiled := 0
	for _, f := range files {
		if !strings.Contains(f, only) {
			continue
		}
		breaks, err := sweep.Of(root, f)
		if err != nil {
			return nil, 0, err
		}
		for _, b := range breaks {
			if !strings.Contains(b.ID(), breakText) {
				continue
			}
			if checker.Compiles(b) != nil {
				notCompiled++
				continue
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("no break of a file matching %q compiles", only)
	}
	return out, notCompiled, nil
}

// coverPackages are the packages whose lines the baseline's coverage records.
func coverPackages() string {
	pkgs := make([]string, len(sweepDirs))
	for i, d := range sweepDirs {
		pkgs[i] = "./" + d
	}
	return strings.Join(pkgs, ",")
}

// baseline runs both tiers without any break, with coverage: they must pass, and their coverage
// says which tier can reach which line.
func baseline(root, work string) (unit, envtest []*cover.Profile, err error) {
	unitProfile, envtestProfile := filepath.Join(work, "unit.cover"), filepath.Join(work, "envtest.cover")
	out, err := trial.GoTest(root, "", "-coverpkg="+coverPackages(), "-coverprofile="+unitProfile, "./controllers/", "./api/...")
	if err != nil {
		return nil, nil, fmt.Errorf("the unit tier fails: %w\n%s", err, out)
	}
	cmd := exec.Command("go", "tool", "ginkgo", "--no-color", "--procs="+strconv.Itoa(sweepProcs), "--cover", "--coverpkg="+coverPackages(),
		"--output-dir="+work, "--coverprofile=envtest.cover", "./scenarios")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("the envtest tier fails: %w\n%s", err, out)
	}
	if unit, err = cover.ParseProfiles(unitProfile); err == nil {
		envtest, err = cover.ParseProfiles(envtestProfile)
	}
	return unit, envtest, err
}

// try runs the tiers against b: the unit tier if a unit test reaches its line, then the
// envtest tier if a scenario does. A kill on envtest is tried repeat times more, the whole tier
// each time: a break that only some runs notice is noticed by chance.
func try(root, dir string, b sweep.Break, unitReaches, envtestReaches bool, repeat int) (outcome, error) {
	o := outcome{reached: unitReaches || envtestReaches}
	ov, err := overlay.Write(dir, map[string]string{filepath.Join(root, filepath.FromSlash(b.File)): string(b.Content)})
	if err != nil {
		return o, err
	}
	if unitReaches {
		o.v, err = trial.UnitTests(root, ov, trial.Notices, "-failfast", unlinked, unvetted, "./controllers/", "./api/...")
		if err != nil || o.v.Failed {
			o.tier = unitTier
			return o, err
		}
	}
	if !envtestReaches {
		return o, nil
	}
	binary := filepath.Join(dir, "scenarios.test")
	if out, err := trial.GoTest(root, ov, "-c", "-o", binary, unlinked, unvetted, "./scenarios/"); err != nil {
		return o, fmt.Errorf("build the scenarios: %w\n%s", err, out)
	}
	for run := range repeat + 1 {
		v, err := envtest(root, dir, binary)
		if err != nil {
			return o, err
		}
		if run == 0 && !v.Failed {
			return o, nil
		}
		o.tier, o.runs = envtestTier, o.runs+1
		if v.Failed {
			o.kills++
			if !slices.Contains(o.killers, v.Test) {
				o.killers = append(o.killers, v.Test)
			}
		}
		if run == 0 {
			o.v = v
		}
	}
	return o, nil
}

// envtest runs the envtest tier (the scenario binary, in sweepProcs processes, stopping at the
// first failure) against a break and reads its report for the first spec that failed. A failure
// outside every spec counts too: a break of the operator that stops the suite's own setup is
// seen, if not by a spec.
func envtest(root, dir, binary string) (trial.Verdict, error) {
	report := filepath.Join(dir, "scenarios.json")
	cmd := exec.Command("go", "tool", "ginkgo", "--no-color", "--timeout=5m", "--procs="+strconv.Itoa(sweepProcs), "--fail-fast",
		"--output-dir="+dir, "--json-report="+filepath.Base(report), binary)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	return trial.Scenarios(err, out, report, root, trial.Notices)
}

func (o outcome) String() string {
	switch {
	case o.err != nil:
		return "NO VERDICT: " + specreport.Gist(o.err.Error())
	case o.tier == unitTier:
		return "killed by unit test " + o.v.Test
	case o.tier == envtestTier:
		return fmt.Sprintf("killed in %d of %d runs of the envtest tier, by %q", o.kills, o.runs, strings.Join(o.killers, `", "`))
	case !o.reached:
		return "SURVIVED: no test reaches the line"
	default:
		return "SURVIVED"
	}
}

// tally is the outcomes sorted for the report: indexes into the breaks.
type tally struct {
	survivors, equivalent, unsteady, unanswered []int
	killed, byUnit                              int
}

// tallied sorts the outcomes of breaks.
func tallied(breaks []sweep.Break, outcomes []outcome) tally {
	var t tally
	for i, b := range breaks {
		o := outcomes[i]
		_, listed := sweep.Equivalent[b.ID()]
		switch {
		case o.err != nil:
			t.unanswered = append(t.unanswered, i)
		case o.tier == "" && listed:
			t.equivalent = append(t.equivalent, i)
		case o.tier == "":
			t.survivors = append(t.survivors, i)
		default:
			t.killed++
			if o.tier == unitTier {
				t.byUnit++
			}
		}
		if o.kills < o.runs {
			t.unsteady = append(t.unsteady, i)
		}
	}
	return t
}

// staleEquivalents are the entries of sweep.Equivalent, for the files swept (their path contains
// only), that none of breaks matches.
func staleEquivalents(breaks []sweep.Break, only string) []string {
	seen := map[string]bool{}
	for _, b := range breaks {
		seen[b.ID()] = true
	}
	var stale []string
	for id := range sweep.Equivalent {
		if strings.Contains(strings.Fields(id)[0], only) && !seen[id] {
			stale = append(stale, id)
		}
	}
	return stale
}

// report prints the score, every survivor, the equivalent breaks and every kill that did
// not happen in every run. It fails on a survivor not listed as equivalent, on a kill that did not
// happen every time, on a break without a verdict, and on an equivalent entry (of the files
// swept) that no break matches.
func report(breaks []sweep.Break, outcomes []outcome, notCompiled, repeat int, only string, took time.Duration) error {
	t := tallied(breaks, outcomes)
	scored := len(breaks) - len(t.equivalent)
	fmt.Printf("# Mutation sweep of %s\n\n", strings.Join(sweepDirs, ", "))
	fmt.Printf("**Score: %d of %d breaks killed (%.0f%%)**, not counting %d equivalent ones: %d by the unit tier, %d by the envtest tier (each envtest kill tried %d more times, the whole tier each time; %d not killed every time). %d breaks without a verdict. %d further breaks do not compile and were not tried. Sweep time: %s.\n",
		t.killed, scored, 100*float64(t.killed)/float64(max(scored, 1)), len(t.equivalent), t.byUnit, t.killed-t.byUnit, repeat, len(t.unsteady), len(t.unanswered), notCompiled, took.Round(time.Second))
	table := func(title, why string, rows []int, reason func(int) string) {
		if len(rows) == 0 {
			return
		}
		fmt.Printf("\n## %s\n\n| Where | Function | Break | %s |\n|---|---|---|---|\n", title, why)
		for _, i := range rows {
			b := breaks[i]
			fmt.Printf("| %s:%d | %s | %s: `%s` → `%s` | %s |\n", b.File, b.Line, b.Func, b.Operator, specreport.Cell(b.Was), specreport.Cell(b.Now), specreport.Cell(reason(i)))
		}
	}
	table("Survivors", "Why it lives", t.survivors, func(i int) string { return outcomes[i].String() })
	table("Killed only sometimes", "Kills", t.unsteady, func(i int) string { return outcomes[i].String() })
	table("No verdict: a run that proved nothing", "Why", t.unanswered, func(i int) string { return outcomes[i].err.Error() })
	table("Equivalent: no behaviour can observe them", "Why", t.equivalent, func(i int) string { return sweep.Equivalent[breaks[i].ID()] })
	stale := staleEquivalents(breaks, only)
	if len(t.survivors) > 0 || len(t.unsteady) > 0 || len(t.unanswered) > 0 || len(stale) > 0 {
		return fmt.Errorf("%d survivors not listed as equivalent, %d kills not made every time, %d breaks without a verdict, %d equivalent entries that match no break (%s)",
			len(t.survivors), len(t.unsteady), len(t.unanswered), len(stale), strings.Join(stale, "; "))
	}
	return nil
}

// reaches says whether a test may have run b's line, by a cover profile: one that a block run
// holds, or one that no block holds at all (the lines of a statement after its first, a
// constant, a package variable: a profile counts statements, not lines). Only a line in blocks
// none of which ran is unreached.
func reaches(profiles []*cover.Profile, b sweep.Break) bool {
	inBlock := false
	for _, p := range profiles {
		if !strings.HasSuffix(p.FileName, "/"+b.File) {
			continue
		}
		for _, bl := range p.Blocks {
			if bl.StartLine <= b.Line && b.Line <= bl.EndLine {
				if bl.Count > 0 {
					return true
				}
				inBlock = true
			}
		}
	}
	return !inBlock
}
