package main

import (
	"fmt"
	"path/filepath"
)

// checkouts are the trees of one run, their scenarios compiled.
type checkouts struct {
	repo, headCommit, work string
	src                    trees
	base, head, mixed      *tree
}

// prepare checks out the base, the head, and the head's specs on the base's production code
// under work, and compiles the scenarios of each.
func prepare(repo, base, head, work string) (*checkouts, error) {
	c := &checkouts{repo: repo, headCommit: head, work: work}
	var err error
	if c.src, err = checkOut(repo, base, head, filepath.Join(work, "src")); err != nil {
		return nil, err
	}
	progress("compiling the scenarios in each checkout")
	if c.base, err = newTree(c.src.base, filepath.Join(work, "base")); err != nil {
		return nil, err
	}
	if c.head, err = newTree(c.src.head, filepath.Join(work, "head")); err != nil {
		return nil, err
	}
	c.mixed, err = newTree(c.src.mixed, filepath.Join(work, "against-base"))
	return c, err
}

// againstBaseWithHeadAPI runs the specs that do not compile against the base once more, against
// the base's behaviour with the head's api/: the names a new spec uses (a reason, a field) come
// with the change, and this run shows whether the spec then fails for the reason it should.
func (c *checkouts) againstBaseWithHeadAPI(description string, specs []spec, atBase map[string]outcome) (map[string]outcome, error) {
	var uncompiledSpecs []spec
	for _, s := range specs {
		if atBase[key(s)].state == uncompiled {
			uncompiledSpecs = append(uncompiledSpecs, s)
		}
	}
	if len(uncompiledSpecs) == 0 {
		return nil, nil
	}
	progress("%d spec(s) do not compile against the base: running them against it with the head's api/", len(uncompiledSpecs))
	if err := c.src.checkOutMixedAPI(c.repo, c.headCommit); err != nil {
		return nil, err
	}
	t, err := newTree(c.src.mixedAPI, filepath.Join(c.work, "against-base-with-head-api"))
	if err != nil {
		return nil, err
	}
	return runAll(t, description, uncompiledSpecs)
}

// changedSpecs are the specs that head adds or changes: scenarios and unit tests. description
// is the scenario suite's, which Ginkgo's focus matches.
func changedSpecs(base, head *tree) ([]spec, string, error) {
	baseListed, _, err := base.listScenarios()
	if err != nil {
		return nil, "", fmt.Errorf("the base's scenarios: %w", err)
	}
	headListed, description, err := head.listScenarios()
	if err != nil {
		return nil, "", fmt.Errorf("the head's scenarios: %w", err)
	}
	baseScenarios, err := readScenarioSpecs(base.dir, baseListed)
	if err != nil {
		return nil, "", err
	}
	headScenarios, err := readScenarioSpecs(head.dir, headListed)
	if err != nil {
		return nil, "", err
	}
	baseUnits, err := unitTests(base.dir, "api", "controllers")
	if err != nil {
		return nil, "", err
	}
	headUnits, err := unitTests(head.dir, "api", "controllers")
	if err != nil {
		return nil, "", err
	}
	return append(changedScenarios(baseScenarios, headScenarios), changedUnitTests(baseUnits, headUnits)...), description, nil
}

// key names a spec uniquely across kinds and packages.
func key(s spec) string { return s.pkg + " " + s.name }

// runAll runs specs in t, the scenarios of each tier together and the unit tests of each package
// together, and says how each ended, by key.
func runAll(t *tree, description string, specs []spec) (map[string]outcome, error) {
	// A run: the scenarios of a tier, or the unit tests of a package.
	type run struct {
		kind  kind
		where string
	}
	runOf := func(s spec) run {
		if s.kind == unit {
			return run{unit, s.pkg}
		}
		return run{scenario, s.tier}
	}
	byRun := map[run][]spec{}
	var order []run
	for _, s := range specs {
		if s.tier == "" {
			continue
		}
		r := runOf(s)
		if _, ok := byRun[r]; !ok {
			order = append(order, r)
		}
		byRun[r] = append(byRun[r], s)
	}
	ended := map[run]map[string]outcome{}
	for _, r := range order {
		var err error
		if r.kind == scenario {
			ended[r], err = t.runScenarios(r.where, description, byRun[r])
		} else {
			ended[r], err = t.runUnitTests(r.where, byRun[r])
		}
		if err != nil {
			return nil, err
		}
	}
	out := map[string]outcome{}
	for _, s := range specs {
		if o, ok := ended[runOf(s)][s.name]; ok {
			out[key(s)] = o
		}
	}
	return out, nil
}
