// Command mutatesweep makes every generic break of the operator's logic (package sweep: a
// statement deleted, a condition negated, a returned error dropped, a constant replaced),
// without anyone choosing them, and runs against each the unit tests, then the envtest specs, that
// run its code. A break that no test notices is a line that no test needs, or a behaviour that no
// test pins: the report gives the score and every survivor, with the tests that reach it.
//
// One build serves every break (sweep.Schemata: each behind a switch), and a run of every test
// alone, unbroken, says which breaks' code it runs; a break that cannot be switched is built on
// its own. `make mutate-sweep` runs it; -shard splits the breaks among jobs, -gather reports
// their verdicts together.
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"example.com/operator-demo/testing/workshop/mutate/sweep"
	"example.com/operator-demo/testing/workshop/mutate/trial"
	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
)

// sweepDirs are the directories the sweep breaks: the operator's logic. cmd/ only wires flags.
var sweepDirs = []string{"controllers", "api/v1alpha1"}

// The tiers the sweep runs, as a verdict names the one that killed a break, and their packages.
const (
	unitTier    = "unit"
	envtestTier = "envtest"
	scenarios   = "./scenarios"
)

var unitPackages = []string{"./controllers", "./api/v1alpha1"}

func main() {
	only := flag.String("file", "", "break only the files whose path contains this text")
	breakText := flag.String("break", "", "try only the breaks whose ID (file function operator: was → now) contains this text")
	repeat := flag.Int("repeat", 2, "run the specs against each break the envtest tier kills this many more times, the spec that killed it first")
	shard := flag.String("shard", "1/1", "try only shard i of n (i/n) of the breaks, split by their IDs")
	workers := flag.Int("workers", 4, "how many test processes run at once")
	jsonPath := flag.String("json", "", "write the verdicts into this file too, for -gather")
	gathered := flag.Bool("gather", false, "report together the verdicts of the shards' JSON files named as arguments")
	flag.Parse()
	r, err := sweepReport{}, error(nil)
	if *gathered {
		r, err = gather(flag.Args())
	} else {
		r, err = run(*only, *breakText, *shard, *repeat, *workers)
	}
	if err == nil && *jsonPath != "" {
		var raw []byte
		if raw, err = json.MarshalIndent(r, "", "  "); err == nil {
			err = errors.Join(os.MkdirAll(filepath.Dir(*jsonPath), 0o755), os.WriteFile(*jsonPath, raw, 0o644))
		}
	}
	if err == nil {
		var md strings.Builder
		err = r.write(&md, *only, r.Shard == "1/1")
		fmt.Print(md.String())
		err = errors.Join(err, specreport.Publish(md.String(), ""))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate-sweep:", err)
		os.Exit(1)
	}
}

// verdict is what the tiers said about one break.
type verdict struct {
	Break sweep.Break
	// Tier killed it (unitTier or envtestTier; "" if it survived), Killers are the tests or specs
	// that did, and Where is where the first failed.
	Tier    string   `json:",omitempty"`
	Killers []string `json:",omitempty"`
	Where   string   `json:",omitempty"`
	// Kills of Runs of the envtest tier.
	Kills, Runs int `json:",omitempty"`
	// Reach are the tests and specs that run its code.
	Reach []string `json:",omitempty"`
	// Err is why the tiers could not say: a run that proved nothing.
	Err string `json:",omitempty"`
}

// sweepReport is what a sweep, or one shard of it, found, and where its time went.
type sweepReport struct {
	Shard string
	// Repeat is how many more times the specs ran against a break they killed.
	Repeat      int
	Verdicts    []verdict
	NotCompiled int
	Took        time.Duration
	// Spent is the time each kind of work took, summed over the processes that did it.
	Spent map[string]time.Duration
}

// sweeper runs the tests against the breaks of one sweep.
type sweeper struct {
	root, work  string
	repeat      int
	description string // the scenario suite's, which Ginkgo's focus matches
	mu          sync.Mutex
	spent       map[string]time.Duration
}

// test is a unit test of Pkg, or a spec of the scenarios (Pkg scenarios), and the numbers of the
// breaks whose code it ran, alone and unbroken.
type test struct {
	Pkg, Name string
	hits      []int
}

// run makes the breaks of sweepDirs (in files whose path contains only, with an ID that contains
// breakText) that compile, builds them in, finds which tests reach which, and tries the breaks of
// the shard (i/n) against the tests that reach them.
func run(only, breakText, shard string, repeat, workers int) (sweepReport, error) {
	start := time.Now()
	r := sweepReport{Shard: shard, Repeat: repeat, Spent: map[string]time.Duration{}}
	i, n, err := shardOf(shard)
	if err != nil {
		return r, err
	}
	root, err := repo.Root()
	if err != nil {
		return r, err
	}
	// The scenario binaries run inside the tree, where the harness finds go.mod.
	work, err := os.MkdirTemp(filepath.Join(root, "bin"), "mutate-sweep-")
	if err != nil {
		return r, err
	}
	defer func() { _ = os.RemoveAll(work) }()
	s := &sweeper{root: root, work: work, repeat: repeat, spent: r.Spent}

	checker, breaks, notCompiled, err := sweep.Compiling(root, sweepDirs, func(b sweep.Break) bool {
		return strings.Contains(b.File, only) && strings.Contains(b.ID(), breakText)
	})
	r.NotCompiled = notCompiled
	if err == nil && len(breaks) == 0 {
		err = fmt.Errorf("no break of a file matching %q, with an ID matching %q, compiles", only, breakText)
	}
	if err != nil {
		return r, err
	}
	progress(start, "%d breaks compile (%d do not); building them in, each behind a switch", len(breaks), r.NotCompiled)
	schema, err := sweep.Build(checker, breaks, func(overlay map[string]string) ([]byte, error) {
		return s.build(work, overlay)
	})
	if err != nil {
		return r, err
	}
	own := strings.Count(fmt.Sprint(schema.Switched), "false")
	progress(start, "%d breaks switched, %d built on their own; every test alone, unbroken, to see which breaks each reaches", len(breaks)-own, own)
	reach, all, err := s.reach(len(breaks), workers)
	if err != nil {
		return r, fmt.Errorf("without any break: %w", err)
	}
	var mine []int
	for k, b := range breaks {
		if inShard(b.ID(), i, n) {
			mine = append(mine, k)
			r.Verdicts = append(r.Verdicts, verdict{Break: b})
		}
	}
	if len(mine) == 0 {
		return r, fmt.Errorf("shard %s holds none of the %d breaks", shard, len(breaks))
	}
	var g errgroup.Group
	g.SetLimit(workers)
	var done atomic.Int32
	for j, k := range mine {
		g.Go(func() error {
			v, id := &r.Verdicts[j], strconv.Itoa(k+1)
			if schema.Switched[k] {
				s.try(v, work, []string{sweep.Env + "=" + id}, reach[k], id)
			} else {
				s.tryAlone(v, filepath.Join(work, id), schema.Alone(v.Break), all, id)
			}
			progress(start, "%d/%d (shard %s): %s:%d %s %s → %s: %s", done.Add(1), len(mine), shard, v.Break.File, v.Break.Line, v.Break.Operator, v.Break.Was, v.Break.Now, v)
			return nil
		})
	}
	_ = g.Wait()
	r.Took = time.Since(start)
	return r, nil
}

func progress(start time.Time, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sweep %4.0f s: "+format+"\n", append([]any{time.Since(start).Seconds()}, args...)...)
}

// shardOf reads i/n, shard i of n.
func shardOf(shard string) (i, n int, err error) {
	if _, err := fmt.Sscanf(shard, "%d/%d", &i, &n); err != nil || i < 1 || i > n {
		return 0, 0, fmt.Errorf("shard %q: want i/n, 1 <= i <= n", shard)
	}
	return i, n, nil
}

// inShard says whether the break with this ID is in shard i of n: a hash of the ID alone decides.
func inShard(id string, i, n int) bool {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum32()%uint32(n)) == i-1
}

// spend counts the time since start as spent on kind.
func (s *sweeper) spend(kind string, start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spent[kind] += time.Since(start)
}

// build builds the unit tests and the scenarios into dir with the overlay.
func (s *sweeper) build(dir string, overlay map[string]string) ([]byte, error) {
	defer s.spend("builds", time.Now())
	return trial.Build(s.root, dir, overlay, append(slices.Clone(unitPackages), scenarios)...)
}

// reach runs every unit test and every envtest spec alone against the schemata's build, with no
// break made: each must pass. It returns, for each of the n breaks, the tests that ran its code,
// and every test.
func (s *sweeper) reach(n, workers int) (reach [][]test, all []test, err error) {
	if all, err = s.tests(); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(filepath.Join(s.work, "hits"), 0o755); err != nil {
		return nil, nil, err
	}
	var g errgroup.Group
	g.SetLimit(workers)
	for i := range all {
		g.Go(func() (err error) {
			file := filepath.Join(s.work, "hits", strconv.Itoa(i))
			v, err := s.runTests("the baseline: each test alone", s.work, []string{sweep.HitsEnv + "=" + file}, all[i:i+1], "reach-"+strconv.Itoa(i))
			if err == nil && v.Failed {
				err = fmt.Errorf("%s fails: %s", v.Test, v.Where)
			}
			raw, readErr := os.ReadFile(file)
			for _, field := range strings.Fields(string(raw)) {
				id, _ := strconv.Atoi(field)
				all[i].hits = append(all[i].hits, id)
			}
			return errors.Join(err, readErr)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	reach = make([][]test, n)
	for _, t := range all {
		for _, id := range t.hits {
			reach[id-1] = append(reach[id-1], t)
		}
	}
	return reach, all, nil
}

// tests lists the unit tests and the envtest tier's specs of the build in s.work.
func (s *sweeper) tests() (all []test, err error) {
	for _, pkg := range unitPackages {
		names, err := s.output(trial.Binary(s.work, pkg), pkg, "-test.list=.")
		if err != nil {
			return nil, err
		}
		for _, name := range strings.Fields(names) {
			if strings.HasPrefix(name, "Test") { // not the benchmarks and examples
				all = append(all, test{Pkg: pkg, Name: name})
			}
		}
	}
	dryRun := filepath.Join(s.work, "dry-run.json")
	if _, err := s.output(trial.Binary(s.work, scenarios), scenarios, "-ginkgo.dry-run", "-ginkgo.json-report="+dryRun); err != nil {
		return nil, err
	}
	suite, err := specreport.Ginkgo(dryRun, s.root)
	for _, spec := range suite.Specs {
		if spec.Passed { // a dry run passes the specs this tier runs
			all = append(all, test{Pkg: scenarios, Name: spec.Name})
		}
	}
	s.description = suite.Description
	return all, err
}

// output runs a test binary in its package's directory, as go test does, and returns its output.
func (s *sweeper) output(binary, pkg string, args ...string) (string, error) {
	cmd := exec.Command(binary, args...)
	cmd.Dir = filepath.Join(s.root, pkg)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", filepath.Base(binary), strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// runTests runs tests in the build in dir, with env: the unit tests of each package in a
// process, then the specs in one (its report named name), up to the first that fails. Its time
// counts as spent on kind.
func (s *sweeper) runTests(kind, dir string, env []string, tests []test, name string) (trial.Verdict, error) {
	defer s.spend(kind, time.Now())
	for _, pkg := range append(slices.Clone(unitPackages), scenarios) {
		var names []string
		for _, t := range tests {
			if t.Pkg == pkg {
				names = append(names, t.Name)
			}
		}
		v, err := trial.Verdict{}, error(nil)
		switch {
		case len(names) == 0:
		case pkg == scenarios:
			v, err = trial.Scenarios(s.root, dir, name, env, trial.Notices, "-ginkgo.focus="+specreport.Focus(s.description, names))
		default:
			v, err = trial.Unit(s.root, dir, pkg, env, names, trial.Notices)
		}
		if err != nil || v.Failed {
			return v, err
		}
	}
	return trial.Verdict{}, nil
}

// try runs against the break of v, which env makes in the build in dir, the tests that reach it:
// the unit tests, then, if none fails, the specs. The specs run s.repeat times more against a
// break they kill, the one that killed it first, then the others if it passes: a break that only
// some runs notice is noticed by chance. Its runs' reports are named for name.
func (s *sweeper) try(v *verdict, dir string, env []string, reach []test, name string) {
	var unit, specs []test
	for _, t := range reach {
		v.Reach = append(v.Reach, t.Name)
		if t.Pkg == scenarios {
			specs = append(specs, t)
		} else {
			unit = append(unit, t)
		}
	}
	v.Tier = unitTier
	first, err := s.runTests("unit runs", dir, env, unit, name)
	if err == nil && !first.Failed && len(specs) > 0 {
		v.Tier = envtestTier
		first, err = s.runTests("envtest runs", dir, env, specs, name)
	}
	if err != nil {
		v.Tier, v.Err = "", err.Error()
		return
	}
	if !first.Failed {
		v.Tier = ""
		return
	}
	v.Killers, v.Where, v.Kills = []string{first.Test}, first.Where, 1
	if v.Tier == envtestTier {
		s.confirm(v, dir, env, specs, name)
	}
}

// confirm runs the specs s.repeat times more against the break of v that they killed: the one
// that killed it first, then the others if it passes.
func (s *sweeper) confirm(v *verdict, dir string, env []string, specs []test, name string) {
	killer := slices.IndexFunc(specs, func(t test) bool { return t.Name == v.Killers[0] })
	others := slices.Delete(slices.Clone(specs), max(killer, 0), max(killer+1, 0))
	for v.Runs = 1; v.Runs <= s.repeat; v.Runs++ { // the first run, then s.repeat more
		again, err := trial.Verdict{}, error(nil)
		if killer >= 0 {
			again, err = s.runTests("envtest confirmations", dir, env, specs[killer:killer+1], name)
		}
		if err == nil && !again.Failed {
			again, err = s.runTests("envtest confirmations", dir, env, others, name)
		}
		if err != nil {
			v.Err = err.Error()
			return
		}
		if again.Failed {
			v.Kills++
			if !slices.Contains(v.Killers, again.Test) {
				v.Killers = append(v.Killers, again.Test)
			}
		}
	}
}

// tryAlone builds the break of v, one that cannot be switched, into dir on its own (the overlay
// alone), and runs every test against it.
func (s *sweeper) tryAlone(v *verdict, dir string, alone map[string]string, all []test, name string) {
	if out, err := s.build(dir, alone); err != nil {
		v.Err = fmt.Sprintf("build it: %v\n%s", err, out)
		return
	}
	s.try(v, dir, nil, all, name)
}

func (v *verdict) String() string {
	switch {
	case v.Err != "":
		return "NO VERDICT: " + specreport.Gist(v.Err)
	case v.Tier == unitTier:
		return "killed by unit test " + v.Killers[0]
	case v.Tier == envtestTier:
		return fmt.Sprintf("killed in %d of %d runs of the specs that reach it, by %q", v.Kills, v.Runs, strings.Join(v.Killers, `", "`))
	case len(v.Reach) == 0:
		return "SURVIVED: no test reaches its code"
	}
	return "SURVIVED"
}

// write prints the score, every survivor with the tests that reach it, every kill not made in
// every run, every break without a verdict, and the equivalent ones. It fails on a survivor not
// listed as equivalent, on a kill not made every time, on a break without a verdict, and, for a
// whole sweep, on an equivalent entry (of the files swept: their path contains only) that no
// break matches.
func (r sweepReport) write(w io.Writer, only string, whole bool) error {
	t := r.tally(only, whole)
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	scored := len(r.Verdicts) - len(t.equivalent)
	p("# Mutation sweep of %s", strings.Join(sweepDirs, ", "))
	if !whole {
		p(", shard %s", r.Shard)
	}
	p("\n\n**Score: %d of %d breaks killed (%.0f%%)**, not counting %d equivalent ones: %d by the unit tier, %d by the envtest tier (each envtest kill tried %d more times; %d not killed every time). %d breaks without a verdict. %d further breaks do not compile and were not tried.\n",
		t.killed, scored, 100*float64(t.killed)/float64(max(scored, 1)), len(t.equivalent), t.byUnit, t.killed-t.byUnit, r.Repeat, len(t.unsteady), len(t.unanswered), r.NotCompiled)
	p("\nSweep time: %s. Time spent, summed over the processes:", r.Took.Round(time.Second))
	for i, kind := range slices.Sorted(maps.Keys(r.Spent)) {
		p("%s %s %s", map[bool]string{true: ",", false: ""}[i > 0], kind, r.Spent[kind].Round(time.Second))
	}
	p(".\n")
	table := func(title, why string, rows []verdict, reason func(verdict) string) {
		if len(rows) == 0 {
			return
		}
		p("\n## %s\n\n| Where | Function | Break | %s |\n|---|---|---|---|\n", title, why)
		for _, v := range rows {
			b := v.Break
			p("| %s:%d | %s | %s: `%s` → `%s` | %s |\n", b.File, b.Line, b.Func, b.Operator, specreport.Cell(b.Was), specreport.Cell(b.Now), specreport.Cell(reason(v)))
		}
	}
	reachedBy := func(v verdict) string {
		if len(v.Reach) == 0 {
			return "no test reaches its code"
		}
		return strings.Join(v.Reach, "; ")
	}
	table("Survivors: no test that runs their code fails", "Reached by", t.survivors, reachedBy)
	table("Killed only sometimes", "Kills", t.unsteady, func(v verdict) string { return v.String() })
	table("No verdict: a run that proved nothing", "Why", t.unanswered, func(v verdict) string { return v.Err })
	table("Equivalent: no behaviour can observe them", "Why", t.equivalent, func(v verdict) string { return sweep.Equivalent[v.Break.ID()] })
	if len(t.survivors)+len(t.unsteady)+len(t.unanswered)+len(t.stale) == 0 {
		return nil
	}
	named := make([]string, len(t.survivors))
	for i, v := range t.survivors {
		named[i] = fmt.Sprintf("%s:%d %s: %s → %s (reached by: %s)", v.Break.File, v.Break.Line, v.Break.Operator, v.Break.Was, v.Break.Now, reachedBy(v))
	}
	return fmt.Errorf("%d survivors not listed as equivalent%s; %d kills not made every time, %d breaks without a verdict, %d equivalent entries that match no break (%s)",
		len(t.survivors), strings.Join(append([]string{""}, named...), "\n  "), len(t.unsteady), len(t.unanswered), len(t.stale), strings.Join(t.stale, "; "))
}

// tally is a report's verdicts sorted for the report.
type tally struct {
	survivors, unsteady, unanswered, equivalent []verdict
	killed, byUnit                              int
	// stale are the equivalent entries, of the files swept, that no break matches.
	stale []string
}

func (r sweepReport) tally(only string, whole bool) (t tally) {
	seen := map[string]bool{}
	for _, v := range r.Verdicts {
		seen[v.Break.ID()] = true
		_, listed := sweep.Equivalent[v.Break.ID()]
		switch {
		case v.Err != "":
			t.unanswered = append(t.unanswered, v)
		case v.Tier == "" && listed:
			t.equivalent = append(t.equivalent, v)
		case v.Tier == "":
			t.survivors = append(t.survivors, v)
		case v.Tier == unitTier:
			t.byUnit++
		}
		if v.Tier != "" {
			t.killed++
		}
		if v.Kills < v.Runs {
			t.unsteady = append(t.unsteady, v)
		}
	}
	for id := range sweep.Equivalent {
		if whole && strings.Contains(strings.Fields(id)[0], only) && !seen[id] {
			t.stale = append(t.stale, id)
		}
	}
	return t
}

// gather reads the shards' reports at paths into one, the report of the whole sweep.
func gather(paths []string) (sweepReport, error) {
	all := sweepReport{Shard: "1/1", Spent: map[string]time.Duration{}}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return all, err
		}
		var r sweepReport
		if err := json.Unmarshal(raw, &r); err != nil {
			return all, fmt.Errorf("%s: %w", path, err)
		}
		all.Verdicts = append(all.Verdicts, r.Verdicts...)
		all.NotCompiled, all.Repeat = all.NotCompiled+r.NotCompiled, r.Repeat
		all.Took = max(all.Took, r.Took)
		for kind, d := range r.Spent {
			all.Spent[kind] += d
		}
	}
	if len(paths) == 0 {
		return all, errors.New("no shard's report to gather")
	}
	slices.SortStableFunc(all.Verdicts, func(a, b verdict) int {
		return cmp.Or(strings.Compare(a.Break.File, b.Break.File), a.Break.Line-b.Break.Line)
	})
	return all, nil
}
