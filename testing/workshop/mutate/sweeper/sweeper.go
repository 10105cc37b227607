// Package sweeper runs the tests against breaks: those package sweep makes of the code, each
// against the tests that reach it (make mutate-sweep), and the mutants, each against its scenario
// (make mutate).
package sweeper

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness/assets"
	"example.com/operator-demo/testing/workshop/mutate/mutants"
	"example.com/operator-demo/testing/workshop/mutate/sweep"
	"example.com/operator-demo/testing/workshop/mutate/trial"
	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
)

// The tiers that kill a break, and their packages.
const (
	unitTier    = "unit"
	envtestTier = "envtest"
	scenarios   = "./scenarios"
	workers     = 4 // test processes at once
)

// group is code the sweep breaks (dirs, each a package) and the test packages that judge its breaks,
// all under root; module is the directory of their go.mod, when it is not root's.
type group struct {
	dirs, tests []string
	module      string
}

// theOperator is the operator's logic (cmd/ only wires flags), judged by its unit tests and scenarios,
// in that order: a break runs its tests in the order listed here, the cheap ones first. api/conditions
// holds the condition and reasons of every version of the API; api/v1beta1, the version the CRD
// serves beside v1alpha1 and the hub of their conversions, is judged by its own tests, controllers'
// conversion tests and the scenarios that read and write it (conversion, validation).
var theOperator = group{dirs: []string{"controllers", "api/v1alpha1", "api/v1beta1", "api/conditions"}, tests: []string{"./controllers", "./api/v1alpha1", "./api/v1beta1", scenarios}}

// theHarness is the harness a team imports (repo.Harness), judged by its own tests alone, which
// its module holds: the scenarios pass whatever a broken check lets through. Its module is
// testing/'s.
var theHarness = group{dirs: repo.Harness, tests: testsOf(repo.Harness), module: "testing"}

// testsOf is the test packages of dirs, from the root: ./<dir>.
func testsOf(dirs []string) []string {
	tests := make([]string, len(dirs))
	for i, dir := range dirs {
		tests[i] = "./" + dir
	}
	return tests
}

// Sweep is make mutate-sweep: it tries the breaks that sel keeps of the operator (of the harness a
// team imports, if harness), each against the tests that reach it, and writes the report to w. It
// fails on survivors and on breaks without a verdict.
func Sweep(harness bool, sel Selection, w io.Writer) error {
	return withSweeper(harness, func(s *sweeper) error {
		var r sweepReport
		if err := s.run(&r, sel); err != nil {
			return err
		}
		return r.write(w)
	})
}

// Mutate is make mutate: it tries the mutants of scenario ("": all) whose break mentions text,
// each against its scenario, on envtest or, where only kube-controller-manager runs it, on a local
// control plane of the binaries in controlPlane ("": none on this machine).
func Mutate(scenario, text, controlPlane string) error {
	return withSweeper(false, func(s *sweeper) error {
		s.places = placesOn(controlPlane)
		return s.mutate(scenario, text)
	})
}

// Verdict is what the tiers said about one break.
type Verdict struct {
	Break        sweep.Break
	Tier, Killer string   // the tier and the test that killed it ("" if it survived)
	Where        string   // the step and line where Killer failed
	TimedOut     bool     // Killer ran past trial.Timeout
	Reach        []string // the tests and specs that run its code
	Err          string   // why the tiers could not say
}

// Selection is which breaks a sweep tries, as make mutate-sweep's variables choose them: those with
// an ID that contains Break (its file's path among it) and, if Since is a revision, on the lines
// changed since it; and, if ReachedBy names a spec, those that its run reaches, each tried as
// Alone says.
type Selection struct {
	Break, Since string
	ReachedBy    Spec
	// Alone: try the breaks against the spec ReachedBy names alone, a few at a time, and stop at
	// the first that fails it (does the spec fail against any?); else each against every test that
	// reaches it, as the whole sweep does (is each killed?).
	Alone bool
}

// keeper is the selection's choice of a break of dirs under root. The lines changed since Since
// are git's: the work tree's edits count, and a file that git does not track yet counts whole.
func (sel Selection) keeper(root string, dirs []string) (func(sweep.Break) bool, error) {
	named := func(b sweep.Break) bool { return strings.Contains(b.ID(), sel.Break) }
	if sel.Since == "" {
		return named, nil
	}
	paths := append([]string{"--"}, dirs...)
	// Whatever git's configuration says: plain text from git itself, paths from root, unprefixed.
	diff, err := repo.Git(root, slices.Concat([]string{"diff", "--no-color", "--no-ext-diff", "--relative", "--no-prefix", "-U0", sel.Since}, paths)...)
	if err != nil {
		return nil, err
	}
	untracked, err := repo.Git(root, slices.Concat([]string{"ls-files", "--others", "--exclude-standard"}, paths)...)
	if err != nil {
		return nil, err
	}
	changed := changedLines(diff)
	for _, file := range strings.Fields(untracked) {
		changed[file] = []lineRange{{1, math.MaxInt}}
	}
	return func(b sweep.Break) bool {
		return named(b) && slices.ContainsFunc(changed[b.File], func(r lineRange) bool { return r.first <= b.Last && b.Line <= r.last })
	}, nil
}

// sweepReport is what a sweep found.
type sweepReport struct {
	Selection
	Dirs        []string // what it broke
	Verdicts    []Verdict
	Reached     int // with ReachedBy: the breaks that spec reaches (with Alone, Verdicts holds those tried)
	NotCompiled int
	Took        time.Duration
}

// sweeper runs tests against breaks.
type sweeper struct {
	root, work  string
	group       group    // what it breaks
	env         []string // added to every run of tests
	started     time.Time
	description string  // the scenario suite's, which Ginkgo's focus matches
	places      []place // make mutate's
	tests       []test  // the tests and specs, listed once, and those run alone to see what they reach
	ran         []bool
	// alone is held by the one spec run unbroken to see what it reaches: a spec that fails then
	// fails the sweep. On make envtest-up's control plane each scenario process points the CRDs'
	// conversion at its own webhook server as it starts, and the API server rebuilds a CRD's
	// storage on each such change, ending every other process's watches: their informers back off
	// for seconds (a spec failed unbroken, its operator settled without a reconcile). The breaks'
	// runs stay 4 at once: a spec that fails there is taken for a kill.
	alone sync.Mutex
}

// test is a unit test of Pkg or a spec (Pkg scenarios), and the breaks whose code it ran (hits).
type test struct {
	Pkg, Name string
	hits      []string // their numbers
}

// withSweeper runs f with a sweeper of the operator or the harness, whose work directory is in the
// tree, for the harness's go.mod.
func withSweeper(harness bool, f func(*sweeper) error) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp(filepath.Join(root, "bin"), "mutate-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()
	g := theOperator
	if harness {
		g = theHarness
	}
	if g.module != "" {
		// go names the module's packages and files from root, as it does the operator's.
		restore, err := repo.Workspace(work, filepath.Join(root, g.module))
		if err != nil {
			return err
		}
		defer restore()
	}
	return f(&sweeper{root: root, work: work, group: g, started: time.Now()})
}

// built is the breaks a sweep tries, built into their schema, and how many more do not compile.
type built struct {
	breaks      []sweep.Break
	schema      sweep.Schema
	notCompiled int
}

// build builds the compiling breaks that sel keeps into their schema; none is an error unless sel
// asks for a change's or a spec's.
func (s *sweeper) build(sel Selection) (*built, error) {
	keep, err := sel.keeper(s.root, s.group.dirs)
	if err != nil {
		return nil, err
	}
	checker, breaks, notCompiled, err := sweep.Compiling(s.root, s.group.dirs, keep)
	b := &built{breaks: breaks, notCompiled: notCompiled}
	switch {
	case err != nil:
		return b, err
	case len(breaks) == 0 && (sel.Since != "" || sel.ReachedBy != Spec{}):
		return b, nil // the report says that there is none
	case len(breaks) == 0:
		return b, fmt.Errorf("no break with an ID matching %q compiles", sel.Break)
	}
	s.progress("%d breaks compile (%d do not); building them in, each behind a switch", len(breaks), notCompiled)
	b.schema, err = sweep.Build(checker, breaks, func(overlay map[string]string) ([]byte, error) {
		return trial.Build(s.root, s.work, overlay, s.group.tests...)
	})
	if err != nil {
		return b, err
	}
	own := strings.Count(fmt.Sprint(b.schema.Switched), "false")
	s.progress("%d breaks switched, %d built on their own", len(breaks)-own, own)
	return b, nil
}

// run tries into r the compiling breaks that sel keeps: each against the tests that reach it, or,
// with sel.ReachedBy, those that spec reaches, each against the tests that reach it or, with
// sel.Alone, against the spec alone until one fails it.
func (s *sweeper) run(r *sweepReport, sel Selection) error {
	start := time.Now()
	*r = sweepReport{Selection: sel, Dirs: s.group.dirs}
	b, err := s.build(sel)
	if b != nil {
		r.NotCompiled = b.notCompiled
	}
	if err != nil || len(b.breaks) == 0 {
		return err
	}
	switch {
	case sel.ReachedBy == Spec{}:
		s.progress("every test alone, unbroken, to see which breaks each reaches")
		all, err := s.reach()
		if err != nil {
			return fmt.Errorf("without any break: %w", err)
		}
		r.Verdicts = s.tryEach(b, indices(len(b.breaks)), all)
	case sel.Alone:
		r.Reached, r.Verdicts, err = s.failsAlone(b, sel.ReachedBy)
	default:
		r.Verdicts, err = s.guarded(b, sel.ReachedBy)
		r.Reached = len(r.Verdicts)
	}
	r.Took = time.Since(start)
	return err
}

// tryEach tries each break of b numbered in chosen against the tests of all that reach it, a few at
// a time: their verdicts, in the order of chosen.
func (s *sweeper) tryEach(b *built, chosen []int, all []test) []Verdict {
	out := make([]Verdict, len(chosen))
	var g errgroup.Group
	g.SetLimit(workers)
	var finished atomic.Int32
	for k, i := range chosen {
		out[k].Break = b.breaks[i]
		g.Go(func() error {
			v := &out[k]
			s.try(v, i, b.schema, all)
			s.progress("%d/%d: %s:%d %s %s → %s: %s", finished.Add(1), len(out), v.Break.File, v.Break.Line, v.Break.Operator, v.Break.Was, v.Break.Now, v)
			return nil
		})
	}
	_ = g.Wait()
	return out
}

// indices are 0 to n-1.
func indices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (s *sweeper) progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sweep %4.0f s: "+format+"\n", append([]any{time.Since(s.started).Seconds()}, args...)...)
}

// reach lists the unit tests and specs, each with the breaks whose code it runs alone, unbroken.
func (s *sweeper) reach() ([]test, error) {
	return s.reached(func(test) bool { return true })
}

// reached are the unit tests and specs that keep chooses, each with the breaks whose code it runs
// alone, unbroken: each is listed once, and run once, the first time a call chooses it.
func (s *sweeper) reached(keep func(test) bool) ([]test, error) {
	if s.ran == nil {
		listed, err := s.list()
		if err != nil {
			return nil, err
		}
		s.tests, s.ran = listed, make([]bool, len(listed))
	}
	var g errgroup.Group
	g.SetLimit(workers)
	for i := range s.tests {
		if s.ran[i] || !keep(s.tests[i]) {
			continue
		}
		s.ran[i] = true
		g.Go(func() error {
			if s.tests[i].Pkg == scenarios {
				s.alone.Lock()
				defer s.alone.Unlock()
			}
			file := filepath.Join(s.work, "hits-"+strconv.Itoa(i))
			v, _, err := s.runTests(s.work, []string{sweep.HitsEnv + "=" + file}, s.tests[i:i+1], "reach-"+strconv.Itoa(i))
			if err == nil && v.Failed {
				err = fmt.Errorf("%s fails: %s", v.Test, v.Where)
			}
			raw, _ := os.ReadFile(file) // none: it reaches no break
			s.tests[i].hits = strings.Fields(string(raw))
			return err
		})
	}
	err := g.Wait()
	return slices.DeleteFunc(slices.Clone(s.tests), func(t test) bool { return !keep(t) }), err
}

// list lists the unit tests and the specs that this tier runs, and reads the suite's description.
func (s *sweeper) list() (all []test, err error) {
	for _, pkg := range s.group.tests {
		if pkg == scenarios {
			continue // its dry run lists its specs, below
		}
		cmd := exec.Command(trial.Binary(s.work, pkg), "-test.list=^Test") // not the benchmarks and examples
		cmd.Dir = filepath.Join(s.root, pkg)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("list the tests of %s: %w\n%s", pkg, err, out)
		}
		for _, name := range strings.Fields(string(out)) {
			all = append(all, test{Pkg: pkg, Name: name})
		}
	}
	if slices.Contains(s.group.tests, scenarios) { // the harness's tests are unit tests alone
		suite, err := s.dryRun(s.env, "dry-run")
		if err != nil {
			return nil, err
		}
		for _, spec := range suite.Specs {
			if spec.Passed {
				all = append(all, test{Pkg: scenarios, Name: spec.Name})
			}
		}
		s.description = suite.Description
	}
	return all, nil
}

// runTests runs tests in the build in dir, with env, a process a package (the unit tests first), up
// to the first failure, which it returns with its tier.
func (s *sweeper) runTests(dir string, env []string, tests []test, name string) (trial.Verdict, string, error) {
	env = slices.Concat(s.env, env)
	for _, pkg := range s.group.tests {
		var names []string
		for _, t := range tests {
			if t.Pkg == pkg {
				names = append(names, t.Name)
			}
		}
		if len(names) == 0 {
			continue
		}
		tier, v, err := unitTier, trial.Verdict{}, error(nil)
		if pkg == scenarios {
			tier = envtestTier
			v, err = trial.Scenarios(s.root, dir, name, env, trial.Notices, trial.Timeout, "-ginkgo.focus="+specreport.Focus(s.description, names))
		} else {
			v, err = trial.Unit(s.root, dir, pkg, env, names, trial.Notices, trial.Timeout)
		}
		if err != nil || v.Failed {
			return v, tier, err
		}
	}
	return trial.Verdict{}, "", nil
}

// try tries v's break, switch i+1, against the tests that reach it, else built alone against all.
func (s *sweeper) try(v *Verdict, i int, schema sweep.Schema, all []test) {
	name := strconv.Itoa(i + 1)
	dir, env := s.work, []string{sweep.Env + "=" + name}
	reach := slices.DeleteFunc(slices.Clone(all), func(t test) bool { return !slices.Contains(t.hits, name) })
	if !schema.Switched[i] {
		dir, env, reach = filepath.Join(s.work, name), nil, all
		alone := maps.Clone(schema.Overlay) // with the break's file as the break makes it, unswitched
		alone[filepath.Join(s.root, v.Break.File)] = string(v.Break.Content)
		if out, err := trial.Build(s.root, dir, alone, s.group.tests...); err != nil {
			v.Err = fmt.Sprintf("build it: %v\n%s", err, out)
			return
		}
	}
	for _, t := range reach {
		v.Reach = append(v.Reach, t.Name)
	}
	first, tier, err := s.runTests(dir, env, reach, name)
	switch {
	case err != nil:
		v.Err = err.Error()
	case first.Failed:
		v.Tier, v.Killer, v.Where, v.TimedOut = tier, first.Test, first.Where, first.TimedOut
	}
}

func (v Verdict) String() string {
	hung := ""
	if v.TimedOut {
		hung = fmt.Sprintf(" (killed by timeout: the run hung past %s)", trial.Timeout)
	}
	switch {
	case v.Err != "":
		return "NO VERDICT: " + specreport.Gist(v.Err)
	case v.Tier == unitTier:
		return "killed by unit test " + v.Killer + hung
	case v.Tier == envtestTier:
		return fmt.Sprintf("killed by spec %q%s", v.Killer, hung)
	case len(v.Reach) == 0:
		return "SURVIVED: no test reaches its code"
	}
	return "SURVIVED"
}

// write prints the report; it fails on survivors and on breaks without a verdict.
func (r sweepReport) write(w io.Writer) error {
	if r.Alone {
		return r.writeAlone(w)
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	title := "# Mutation sweep of " + strings.Join(r.Dirs, ", ")
	if r.Since != "" {
		title += ", the lines changed since " + r.Since
	}
	if r.ReachedBy != (Spec{}) {
		title += ", the breaks that " + r.ReachedBy.String() + " reaches"
	}
	switch {
	case len(r.Verdicts) == 0 && r.ReachedBy != (Spec{}):
		p("%s\n\nNo generic break that compiles is reached by %s: nothing to sweep.\n", title, r.ReachedBy)
		return nil
	case len(r.Verdicts) == 0 && r.Since != "":
		p("%s\n\nNo generic break that compiles on the lines changed since %s: nothing to sweep.\n", title, r.Since)
		return nil
	}
	var survivors, unanswered, equivalent, hung []Verdict
	byUnit := 0
	var named string // the survivors, for the error
	for _, v := range r.Verdicts {
		_, listed := sweep.Equivalent[v.Break.ID()]
		switch {
		case v.Err != "":
			unanswered = append(unanswered, v)
		case v.Tier == unitTier:
			byUnit++
		case v.Tier != "": // killed by the envtest tier
		case listed:
			equivalent = append(equivalent, v)
		default:
			survivors = append(survivors, v)
			named += fmt.Sprintf("\n  %s:%d %s: %s → %s (reached by: %s)", v.Break.File, v.Break.Line, v.Break.Operator, v.Break.Was, v.Break.Now, reachedBy(v))
		}
		if v.TimedOut {
			hung = append(hung, v)
		}
	}
	scored := len(r.Verdicts) - len(equivalent)
	killed := scored - len(unanswered) - len(survivors)
	p("%s\n\n**Score: %d of %d breaks killed (%.0f%%)**, not counting %d equivalent ones: %d by the unit tier, %d by the envtest tier; %d of the kills by timeout. %d breaks without a verdict. %d further breaks do not compile and were not tried.\n",
		title, killed, scored, 100*float64(killed)/float64(max(scored, 1)), len(equivalent), byUnit, killed-byUnit, len(hung), len(unanswered), r.NotCompiled)
	p("\nSweep time: %s.\n", r.Took.Round(time.Second))
	table(w, "Survivors: no test that runs their code fails", "Reached by", survivors, reachedBy)
	table(w, "No verdict: a run that proved nothing", "Why", unanswered, func(v Verdict) string { return v.Err })
	table(w, "Killed by timeout: a test that runs their code hung", "Kills", hung, Verdict.String)
	table(w, "Equivalent: no behaviour can observe them", "Why", equivalent, func(v Verdict) string { return sweep.Equivalent[v.Break.ID()] })
	if len(survivors)+len(unanswered) == 0 {
		return nil
	}
	return fmt.Errorf("%d survivors not listed as equivalent%s; %d breaks without a verdict", len(survivors), named, len(unanswered))
}

// table prints rows of breaks under title, with a column why from reason.
func table(w io.Writer, title, why string, rows []Verdict, reason func(Verdict) string) {
	if len(rows) > 0 {
		fmt.Fprintf(w, "\n## %s\n\n| Where | Function | Break | %s |\n|---|---|---|---|\n", title, why)
	}
	for _, v := range rows {
		b := v.Break
		fmt.Fprintf(w, "| %s:%d | %s | %s: `%s` → `%s` | %s |\n", b.File, b.Line, b.Func, b.Operator, specreport.Cell(b.Was), specreport.Cell(b.Now), specreport.Cell(reason(v)))
	}
}

func reachedBy(v Verdict) string {
	return cmp.Or(strings.Join(v.Reach, "; "), "no test reaches its code")
}

// mutate is make mutate: each chosen mutant must fail its scenario, which passes unbroken, on the
// cheapest place that runs it; the unit tests show which layer of the pyramid sees which break.
func (s *sweeper) mutate(scenario, text string) error {
	chosen, err := choose(mutants.All, scenario, text)
	if err != nil {
		return err
	}
	if out, err := trial.Build(s.root, s.work, nil, scenarios); err != nil {
		return fmt.Errorf("the scenarios do not build: %w\n%s", err, out)
	}
	places, labels, placed := make([]place, len(chosen)), map[string][]string{}, map[string]place{}
	for i, m := range chosen {
		p, ok := placed[m.Scenario]
		if !ok { // a dry run or two for each scenario, not for each of its breaks
			if p, err = s.placeOf(m.Scenario); err != nil {
				return err
			}
			placed[m.Scenario] = p
			labels[p.name] = append(labels[p.name], m.Scenario)
		}
		places[i] = p
	}
	for i, p := range s.places {
		if len(labels[p.name]) == 0 {
			continue
		}
		caught, unit, _, err := s.tryMutant(filepath.Join(s.work, "unbroken-"+strconv.Itoa(i)), mutants.Mutant{Scenario: strings.Join(labels[p.name], " || ")}, p)
		if v := cmp.Or(caught, unit); err != nil {
			return fmt.Errorf("without any mutant, on %s: %w", p.name, err)
		} else if v.Failed {
			return fmt.Errorf("without any mutant, %s fails on %s (%s): fix that first", v.Test, p.name, v.Where)
		}
	}
	rows, survived := make([]string, len(chosen)), make([]string, len(chosen))
	var g errgroup.Group
	g.SetLimit(2) // a killed break mostly waits out an Eventually: two at a time roughly halve a run on two cores
	for i, m := range chosen {
		g.Go(func() error {
			caught, unit, took, err := s.tryMutant(filepath.Join(s.work, strconv.Itoa(i+1)), m, places[i])
			if err != nil {
				return fmt.Errorf("mutant %q: %w", m.Break, err)
			}
			fmt.Fprintf(os.Stderr, "mutant %d/%d: %s: %s\n", i+1, len(chosen), m.Break, caught)
			rows[i] = fmt.Sprintf("| %s | %s | %s | %s (%.0f s) | %s |", m.Break, m.Scenario, places[i].name, specreport.Cell(caught.String()), took.Seconds(), specreport.Cell(unit.String()))
			if !caught.Failed {
				survived[i] = fmt.Sprintf("%q survived %s", m.Break, m.Scenario)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	fmt.Printf("| Mutant | Scenario | Tier | Scenario run: the spec that failed, at its step and line | Unit tests |\n|---|---|---|---|---|\n%s\n", strings.Join(rows, "\n"))
	if survived = slices.DeleteFunc(survived, func(s string) bool { return s == "" }); len(survived) > 0 {
		return fmt.Errorf("a scenario passed against the break it exists to catch: %s", strings.Join(survived, "; "))
	}
	fmt.Printf("\nEvery break failed the scenario that exists to catch it (%d of the %d mutants).\n", len(chosen), len(mutants.All))
	return nil
}

// place is a tier that make mutate runs a scenario on.
type place struct {
	name string // as package tiers names it
	// env is what a run of the scenarios built in a directory adds to the environment; nil where
	// this machine lacks the tier, and err says why.
	env func(dir string) []string
	err error
	// manager: the scenarios run the operator's manager, built with the break, as a process.
	manager bool
	// timeout bounds a run of the scenarios there: trial.Timeout, but longer where
	// kube-controller-manager's controllers act, on their own schedule (its storage version
	// migrator took 75 s to migrate the ConfigMaps, in the storage migration's break).
	timeout time.Duration
}

// placesOn are make mutate's places, cheapest first: envtest, then, for a scenario that needs
// kube-controller-manager, the local control plane, whose binaries are in controlPlane ("": this
// machine has none).
func placesOn(controlPlane string) []place {
	envtest := place{name: tiers.All[0].Name, timeout: trial.Timeout, env: func(string) []string { return nil }}
	local := place{name: tiers.All[1].Name, manager: true, timeout: 2 * trial.Timeout, env: func(dir string) []string {
		return []string{
			tiers.Env + "=" + tiers.E2E, tiers.ProviderEnv + "=" + tiers.ProviderLocal,
			assets.Env + "=" + controlPlane, "E2E_OPERATOR_BINARY=" + filepath.Join(dir, "manager"),
		}
	}}
	if controlPlane == "" {
		local.err = errors.New("it needs a local control plane, with kube-controller-manager, which is built for Linux alone: make mutate on Linux provides it (make setup-controlplane)")
	}
	return []place{envtest, local}
}

// placeOf is the cheapest place where a spec labelled label runs: the scenarios' dry run there
// passes it.
func (s *sweeper) placeOf(label string) (place, error) {
	for i, p := range s.places {
		suite, err := s.dryRun(p.env(s.work), "dry-run-"+strconv.Itoa(i), "-ginkgo.label-filter="+label)
		if err != nil {
			return place{}, fmt.Errorf("on %s: %w", p.name, err)
		}
		if !slices.ContainsFunc(suite.Specs, func(r specreport.Result) bool { return r.Passed }) {
			continue
		} else if p.err != nil {
			return place{}, fmt.Errorf("scenario %q runs on %s alone: %w", label, p.name, p.err)
		}
		return p, nil
	}
	return place{}, fmt.Errorf("scenario %q: nothing matched: no spec labelled so runs on any tier make mutate runs", label)
}

// dryRun is the scenarios' dry run in the build in s.work, with env and flags, its report
// s.work/name.json: it passes the specs that the tier env names runs, and starts nothing.
func (s *sweeper) dryRun(env []string, name string, flags ...string) (specreport.Suite, error) {
	cmd := exec.Command(trial.Binary(s.work, scenarios), append([]string{"-ginkgo.dry-run"}, flags...)...)
	cmd.Dir, cmd.Env = filepath.Join(s.root, scenarios), append(os.Environ(), env...)
	suite, out, err, readErr := specreport.Run(cmd, filepath.Join(s.work, name+".json"), s.root)
	if err = cmp.Or(err, readErr); err != nil {
		return suite, fmt.Errorf("the scenarios' dry run: %w\n%s", err, out)
	}
	return suite, nil
}

// tryMutant builds m into dir and runs, on p, the scenarios its label filter selects, then the
// unit tests (make mutate's sweeper's: the operator's). The work directory lies in the tree, where
// the scenarios read the files of a break that are not Go (trial.Scenarios).
func (s *sweeper) tryMutant(dir string, m mutants.Mutant, p place) (caught, unit trial.Verdict, took time.Duration, err error) {
	mutated, err := m.Apply(s.root)
	if err != nil {
		return caught, unit, took, err
	}
	if out, err := trial.Build(s.root, dir, mutated, s.group.tests...); err != nil {
		return caught, unit, took, fmt.Errorf("does not build: %w\n%s", err, out)
	}
	if p.manager {
		if out, err := trial.BuildCommand(s.root, dir, mutated, "./cmd", "manager"); err != nil {
			return caught, unit, took, fmt.Errorf("the manager does not build: %w\n%s", err, out)
		}
	}
	start := time.Now()
	if caught, err = trial.Scenarios(s.root, dir, "scenarios", p.env(dir), trial.ProvesNothing, p.timeout, "-ginkgo.label-filter="+m.Scenario); err != nil {
		return caught, unit, took, fmt.Errorf("scenario %s: %w", m.Scenario, err)
	} else if caught.Ran == 0 { // no spec failed, for none ran: it says nothing of the break
		return caught, unit, took, fmt.Errorf("scenario %q: nothing matched: no spec that runs on %s is labelled so", m.Scenario, p.name)
	}
	took = time.Since(start)
	for _, pkg := range s.group.tests {
		if pkg == scenarios {
			continue
		}
		if unit, err = trial.Unit(s.root, dir, pkg, nil, nil, trial.ProvesNothing, trial.Timeout); err != nil || unit.Failed {
			return caught, unit, took, err
		}
	}
	return caught, unit, took, nil
}

// choose is the mutants of all of scenario ("": all) whose break mentions text.
func choose(all []mutants.Mutant, scenario, text string) ([]mutants.Mutant, error) {
	chosen := slices.DeleteFunc(slices.Clone(all), func(m mutants.Mutant) bool {
		return scenario != "" && m.Scenario != scenario || !strings.Contains(m.Break, text)
	})
	if len(chosen) > 0 {
		return chosen, nil
	}
	scenarios := make([]string, 0, len(all))
	for _, m := range all {
		scenarios = append(scenarios, m.Scenario)
	}
	slices.Sort(scenarios)
	return nil, fmt.Errorf("nothing matched: no break of scenario %q mentions %q; scenarios with breaks: %s", scenario, text, strings.Join(slices.Compact(scenarios), ", "))
}

// lineRange is the lines first to last of a file, numbered from 1.
type lineRange struct{ first, last int }

// hunk is a unified diff's hunk header: its new side starts at line 1 and runs 2 lines.
var hunk = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// changedLines are the new side's lines that `git diff -U0` shows changed.
func changedLines(diff string) map[string][]lineRange {
	out := map[string][]lineRange{}
	var file string
	for line := range strings.SplitSeq(diff, "\n") {
		if name, ok := strings.CutPrefix(line, "+++ "); ok {
			file = name // a deleted file's "/dev/null": its hunk holds no file's lines, nor any break
		} else if m := hunk.FindStringSubmatch(line); m != nil {
			start, _ := strconv.Atoi(m[1])
			count, _ := strconv.Atoi(cmp.Or(m[2], "1")) // no count: one line
			count = cmp.Or(count, 2)                    // 0: a deletion touches the lines either side
			out[file] = append(out[file], lineRange{start, start + count - 1})
		}
	}
	return out
}
