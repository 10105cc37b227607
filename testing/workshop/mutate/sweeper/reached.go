package sweeper

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"example.com/operator-demo/testing/workshop/specreport"
)

// Spec is a unit test of Pkg ("./controllers") or a spec of the scenarios (Pkg "./scenarios"), by
// its full name: the test function's, or the spec's texts as Ginkgo joins them.
type Spec struct{ Pkg, Name string }

func (s Spec) String() string { return s.Pkg + " " + s.Name }

// ParseSpec is a Spec as make mutate-sweep's REACHED_BY gives it: its package, a space, its name.
func ParseSpec(text string) (Spec, error) {
	pkg, name, ok := strings.Cut(strings.TrimSpace(text), " ")
	if name = strings.TrimSpace(name); !ok || !strings.HasPrefix(pkg, "./") || name == "" {
		return Spec{}, fmt.Errorf("%q names no spec: give its package and its full name, as ./controllers TestDesiredStatus or ./scenarios Sample when created creates its ConfigMap", text)
	}
	return Spec{pkg, name}, nil
}

// Tree tries the breaks of the operator's code in a tree against one spec at a time, built once,
// each test run alone once to see what it reaches (make test-first).
type Tree struct {
	s *sweeper
	b *built
}

// Open builds every compiling break of the operator's code in the tree at root into the test
// binaries of pkgs (the operator's test packages that the specs asked of it live in; Guarded needs
// them all), in work, a directory of its own; env is added to every run of tests.
func Open(root, work string, env, pkgs []string) (*Tree, error) {
	g := theOperator
	g.tests = slices.DeleteFunc(slices.Clone(g.tests), func(pkg string) bool { return !slices.Contains(pkgs, pkg) })
	s := &sweeper{root: root, work: work, group: g, env: env, started: time.Now()}
	b, err := s.build(Selection{})
	if err != nil {
		return nil, fmt.Errorf("build the breaks of %s in %s: %w", strings.Join(g.dirs, ", "), root, err)
	}
	return &Tree{s, b}, nil
}

// OperatorTests are the test packages that judge a break of the operator: Guarded needs them all.
func OperatorTests() []string { return slices.Clone(theOperator.tests) }

// FailsAlone tries spec alone against each break its run reaches, a few at a time, until one fails
// it: how many it reaches, and the verdicts of those tried (Killed on the one that failed it, if
// any). Only the spec's own failure counts: a break that fails its binary before it runs (a
// panic) is a run without a verdict. The cost: one run for each break tried, all of them for a
// spec that none fails. A package's declarations run as its binary starts, so each spec reaches
// the breaks of their constants.
func (t *Tree) FailsAlone(spec Spec) (reached int, tried []Verdict, err error) {
	return t.s.failsAlone(t.b, spec)
}

// Guarded tries each break that spec reaches against every test that reaches it, as the whole
// sweep does: their verdicts, a survivor the one that no test killed. The cost: every unit test run
// alone once, then the breaks; every spec alone once more only when a break survives the unit
// tests and spec itself.
func (t *Tree) Guarded(spec Spec) ([]Verdict, error) {
	return t.s.guarded(t.b, spec)
}

// Killed says whether a test killed the break.
func (v Verdict) Killed() bool { return v.Tier != "" }

// failsAlone is FailsAlone of the breaks of b.
func (s *sweeper) failsAlone(b *built, spec Spec) (reached int, tried []Verdict, err error) {
	found, err := s.find(spec)
	if err != nil || len(b.breaks) == 0 {
		return 0, nil, err
	}
	chosen := b.reachedBy(found)
	s.progress("%s reaches %d breaks: trying it alone against them, up to the first that fails it", spec, len(chosen))
	out := make([]Verdict, len(chosen))
	var g errgroup.Group
	g.SetLimit(workers)
	var failed atomic.Bool
	for k, i := range chosen {
		out[k].Break = b.breaks[i]
		g.Go(func() error {
			if failed.Load() {
				return nil
			}
			v := &out[k]
			s.try(v, i, b.schema, []test{found})
			if v.Killed() && v.Killer != spec.Name { // a binary that panics before any test fails every test alike
				v.Err, v.Tier, v.Killer = fmt.Sprintf("failed outside the spec (%s, at %s), which says nothing of it", v.Killer, v.Where), "", ""
			}
			s.progress("%s: %s:%d %s %s → %s: %s", spec.Name, v.Break.File, v.Break.Line, v.Break.Operator, v.Break.Was, v.Break.Now, v)
			failed.CompareAndSwap(false, v.Killed())
			return nil
		})
	}
	_ = g.Wait()
	tried = slices.DeleteFunc(out, func(v Verdict) bool { return v.Reach == nil && v.Err == "" }) // never started
	return len(chosen), tried, nil
}

// guarded is Guarded of the breaks of b: against the unit tests and spec itself first; those that
// survive, against the specs that reach them too.
func (s *sweeper) guarded(b *built, spec Spec) ([]Verdict, error) {
	found, err := s.find(spec)
	if err != nil || len(b.breaks) == 0 {
		return nil, err
	}
	chosen := b.reachedBy(found)
	first := func(t test) bool { return t.Pkg != scenarios || t.Pkg == spec.Pkg && t.Name == spec.Name }
	s.progress("%s reaches %d breaks: each against the unit tests that reach it, and the spec; every unit test alone first, to see which breaks each reaches", spec, len(chosen))
	tests, err := s.reached(first)
	if err != nil {
		return nil, fmt.Errorf("without any break: %w", err)
	}
	out := s.tryEach(b, chosen, tests)
	var again []int // the survivors, against the other specs that reach them
	for k, v := range out {
		if !v.Killed() && v.Err == "" {
			again = append(again, k)
		}
	}
	if len(again) == 0 || !slices.Contains(s.group.tests, scenarios) {
		return out, nil
	}
	s.progress("%d breaks survive the unit tests and the spec: each against the other specs that reach it; every spec alone first, to see which breaks each reaches", len(again))
	rest, err := s.reached(func(t test) bool { return !first(t) })
	if err != nil {
		return nil, fmt.Errorf("without any break: %w", err)
	}
	for k, v := range s.tryEach(b, slices.Collect(func(yield func(int) bool) {
		for _, k := range again {
			if !yield(chosen[k]) {
				return
			}
		}
	}), rest) {
		v.Reach = slices.Concat(out[again[k]].Reach, v.Reach)
		out[again[k]] = v
	}
	return out, nil
}

// find is spec among the tests and specs of the sweep, run alone to see what it reaches.
func (s *sweeper) find(spec Spec) (test, error) {
	found, err := s.reached(func(t test) bool { return t.Pkg == spec.Pkg && t.Name == spec.Name })
	switch {
	case err != nil:
		return test{}, fmt.Errorf("%s, unbroken: %w", spec, err)
	case len(found) == 0:
		return test{}, fmt.Errorf("%s: no such test or spec runs in the sweep, which runs the unit tests of %s and the specs of the envtest tier", spec, strings.Join(slices.DeleteFunc(slices.Clone(s.group.tests), func(p string) bool { return p == scenarios }), ", "))
	}
	return found[0], nil
}

// reachedBy are the breaks of b that t's run reaches, by their numbers: those switched that it ran,
// then those built on their own, which no run records, in a function where it ran another.
func (b *built) reachedBy(t test) []int {
	var out []int
	ran := map[string]bool{}
	for i, brk := range b.breaks {
		if b.schema.Switched[i] && slices.Contains(t.hits, strconv.Itoa(i+1)) {
			out = append(out, i)
			ran[brk.File+" "+brk.Func] = true
		}
	}
	for i, brk := range b.breaks {
		if !b.schema.Switched[i] && ran[brk.File+" "+brk.Func] {
			out = append(out, i)
		}
	}
	return out
}

// writeAlone prints the report of a spec tried alone against the breaks it reaches; it fails when
// none fails it.
func (r sweepReport) writeAlone(w io.Writer) error {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# The breaks of %s that %s reaches, tried against it alone\n\n", strings.Join(r.Dirs, ", "), r.ReachedBy)
	i := slices.IndexFunc(r.Verdicts, Verdict.Killed)
	if i >= 0 {
		v := r.Verdicts[i]
		p("It fails against `%s` (%s:%d), at %s: %d of the %d breaks it reaches tried.\n", v.Break.ID(), v.Break.File, v.Break.Line, specreport.Cell(v.Where), len(r.Verdicts), r.Reached)
		return nil
	}
	unanswered := len(slices.DeleteFunc(slices.Clone(r.Verdicts), func(v Verdict) bool { return v.Err == "" }))
	p("No break of the %d it reaches fails it (%d without a verdict). Try time: %s.\n", r.Reached, unanswered, r.Took.Round(time.Second))
	table(w, "No verdict: a run that proved nothing", "Why", slices.DeleteFunc(slices.Clone(r.Verdicts), func(v Verdict) bool { return v.Err == "" }), func(v Verdict) string { return v.Err })
	return errors.New("no break of the code it reaches fails it: it cannot fail")
}
