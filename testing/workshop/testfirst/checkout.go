package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"example.com/operator-demo/testing/tiers"
	"example.com/operator-demo/testing/warm"
	"example.com/operator-demo/testing/workshop/specreport"
)

// production are the paths whose files, but tests, make up the operator. The first, api/, holds
// the names (types, fields, reasons) that a new spec may need just to compile.
var production = []string{"api", "controllers", "cmd", "config/crd"}

// isProduction says whether the file at path is production code under one of under (default all).
func isProduction(path string, under ...string) bool {
	if len(under) == 0 {
		under = production
	}
	return !strings.HasSuffix(path, "_test.go") && slices.ContainsFunc(under, func(p string) bool {
		return path == p || strings.HasPrefix(path, p+"/")
	})
}

// checkout is one tree that specs run in, written out of git, with its scenarios compiled.
type checkout struct {
	dir, work, warm string // the tree; where its binaries, reports and logs go; check.warm
	// scenarios is the compiled scenario suite, or "" with the compiler's errors in uncompiled.
	scenarios, uncompiled string
}

// checkOut writes rev into a tree of its own, its production code under paths from productionOf
// when given, and compiles its scenarios.
func (c check) checkOut(name, rev, productionOf string, paths ...string) (*checkout, error) {
	t := &checkout{dir: filepath.Join(c.work, name, "tree"), work: filepath.Join(c.work, name), warm: c.warm}
	if err := materialize(c.repo, rev, t.dir, func(path string) bool { return productionOf == "" || !isProduction(path, paths...) }); err != nil {
		return nil, err
	}
	if productionOf != "" {
		if err := materialize(c.repo, productionOf, t.dir, func(path string) bool { return isProduction(path, paths...) }); err != nil {
			return nil, err
		}
	}
	if !fileExists(filepath.Join(t.dir, "scenarios")) {
		return t, nil
	}
	bin := filepath.Join(t.work, "scenarios.test")
	// -e: every error, not the first ten, which may not hold the cause.
	if out, err := t.goCmd("test", "-c", "-gcflags=-e", "-o", bin, "./scenarios"); err != nil {
		t.uncompiled = specreport.CompilerErrors(string(out))
	} else {
		t.scenarios = bin
	}
	return t, nil
}

// materialize writes the files of rev that keep keeps (by path) into dir, through an index of
// its own: no work tree is added, no index or ref of the repository changes.
func materialize(repo, rev, dir string, keep func(path string) bool) error {
	all, err := git(repo, "ls-tree", "-r", "-z", "--name-only", rev)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	kept := slices.DeleteFunc(strings.Split(all, "\x00"), func(path string) bool { return path == "" || !keep(path) })
	read := exec.Command("git", "read-tree", rev)
	write := exec.Command("git", "checkout-index", "-z", "--stdin", "--prefix="+filepath.ToSlash(dir)+"/")
	write.Stdin = strings.NewReader(strings.Join(append(kept, ""), "\x00"))
	for _, cmd := range []*exec.Cmd{read, write} {
		cmd.Dir, cmd.Env = repo, append(os.Environ(), "GIT_INDEX_FILE="+dir+".index")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s of %s: %w: %s", strings.Join(cmd.Args[:2], " "), rev, err, out)
		}
	}
	return nil
}

// state is how a spec ended in one tree.
type state int

const (
	none       state = iota // not run there: no run was needed
	passed                  // ran and passed
	failed                  // ran and failed in its own body or setup
	uncompiled              // its package does not compile there
	broken                  // failed outside its body (suite setup, cleanup) or did not run: proves nothing
)

// outcome is how a spec ended in one tree, and the line that says why.
type outcome struct {
	state  state
	detail string
}

// runnable are the tiers a scenario can run on here, cheapest first: all but kind (Docker).
var runnable = slices.DeleteFunc(slices.Clone(tiers.All), func(t tiers.Tier) bool { return t.Name == "e2e kind" })

// envtest is the tier that runs the operator in the test process; the others run cmd/ built.
const envtest = "envtest"

// goCmd runs the go subcommand in the tree; -trimpath lets the build cache serve every tree.
func (t *checkout) goCmd(subcommand string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{subcommand, "-trimpath"}, args...)...)
	cmd.Dir = t.dir
	return cmd.CombinedOutput()
}

// listScenarios lists the tree's scenario specs by a dry run on each tier, and the suite's
// description, which Ginkgo's focus matches.
func (t *checkout) listScenarios() (specs []spec, description string, err error) {
	if t.uncompiled != "" {
		return nil, "", fmt.Errorf("the scenarios do not compile in %s: %s", t.dir, specreport.CompilerCause(t.uncompiled, ""))
	}
	if t.scenarios == "" {
		return nil, "", nil
	}
	var dryRuns []dryRun
	for _, tier := range runnable {
		suite, err := t.runSuite(tier.Environment, "dry-run-"+tier.Name, "-ginkgo.dry-run")
		if err != nil {
			return nil, "", err
		}
		dryRuns = append(dryRuns, dryRun{tier.Name, suite})
		description = suite.Description
	}
	specs, err = scenarioSpecs(t.dir, dryRuns)
	return specs, description, err
}

// runAll runs specs in the tree, each tier's scenarios and each package's unit tests together,
// and says how each ended, by key.
func (t *checkout) runAll(description string, specs []spec) (map[string]outcome, error) {
	out := map[string]outcome{}
	for _, s := range specs {
		if _, done := out[key(s)]; done || s.tier == "" {
			continue
		}
		group := slices.DeleteFunc(slices.Clone(specs), func(o spec) bool { return o.tier != s.tier || o.pkg != s.pkg })
		names := make([]string, len(group))
		for i, g := range group {
			names[i] = g.name
		}
		var ended func(spec) outcome
		var err error
		if s.kind == unit {
			ended, err = t.runUnitTests(s.pkg, names)
		} else {
			ended, err = t.runScenarios(s.tier, description, names)
		}
		if err != nil {
			return nil, err
		}
		for _, g := range group {
			out[key(g)] = ended(g)
		}
	}
	return out, nil
}

// runScenarios runs the specs named names on the tier named tier, and says how each ended.
func (t *checkout) runScenarios(tier, description string, names []string) (func(spec) outcome, error) {
	if t.uncompiled != "" {
		return doesNotCompile(t.uncompiled), nil
	}
	env := slices.Clone(runnable[slices.IndexFunc(runnable, func(x tiers.Tier) bool { return x.Name == tier })].Environment)
	always := func(o outcome) func(spec) outcome { return func(spec) outcome { return o } }
	manager := filepath.Join(t.dir, "bin", "manager")
	switch {
	case tier != envtest && !fileExists(filepath.Join(t.dir, "cmd")):
		return always(outcome{broken, "the e2e tier runs the operator built from cmd/, which this revision lacks"}), nil
	case tier != envtest:
		if b, err := t.goCmd("build", "-o", manager, "./cmd"); err != nil {
			return always(outcome{uncompiled, "the manager does not compile: " + specreport.CompilerCause(string(b), "")}), nil
		}
		env = append(env, "E2E_OPERATOR_BINARY="+manager)
	case t.warm != "":
		env = append(env, warm.Env+"="+t.warm)
	}
	suite, err := t.runSuite(env, "run-"+tier, "-ginkgo.focus="+specreport.Focus(description, names))
	if err != nil {
		return nil, err
	}
	if suite.Setup != nil {
		return nil, fmt.Errorf("the suite failed outside any spec in %s (%s), which proves nothing: %s", t.dir, suite.Setup.Name, suite.Setup.Where())
	}
	return ended(suite.Specs), nil
}

// runUnitTests runs the test functions named names of pkg, and says how each ended.
func (t *checkout) runUnitTests(pkg string, names []string) (func(spec) outcome, error) {
	events, runErr := t.goCmd("test", "-count=1", "-json", "-run=^"+specreport.AnyOf(names)+"$", pkg)
	tests, buildErrors, err := specreport.GoTest(events)
	if err != nil {
		return nil, errors.Join(err, runErr)
	}
	for _, errs := range buildErrors {
		return doesNotCompile(errs), nil
	}
	return ended(tests.Specs), nil
}

// ended is how a spec ended, as results say: one they leave out did not run.
func ended(results []specreport.Result) func(spec) outcome {
	return func(s spec) outcome {
		i := slices.IndexFunc(results, func(r specreport.Result) bool { return r.Name == s.name })
		switch {
		case i < 0:
		case results[i].Passed:
			return outcome{state: passed}
		case results[i].Failed() && results[i].InSpec:
			return outcome{failed, results[i].Where()}
		case results[i].Failed():
			return outcome{broken, "failed outside the spec: " + results[i].Where()}
		}
		return outcome{broken, "did not run"}
	}
}

// doesNotCompile is the outcome of a spec whose package does not compile, with errors.
func doesNotCompile(errors string) func(spec) outcome {
	return func(s spec) outcome {
		return outcome{uncompiled, "does not compile: " + specreport.CompilerCause(errors, s.file)}
	}
}

// runSuite runs the compiled scenarios from their directory, as go test does, and reads Ginkgo's
// JSON report. A run whose specs fail is no error.
func (t *checkout) runSuite(env []string, name string, flags ...string) (specreport.Suite, error) {
	name = filepath.Join(t.work, strings.ReplaceAll(name, " ", "-"))
	cmd := exec.Command(t.scenarios, append([]string{"-test.timeout=30m"}, flags...)...)
	cmd.Dir, cmd.Env = filepath.Join(t.dir, "scenarios"), append(os.Environ(), env...)
	suite, out, runErr, err := specreport.Run(cmd, name+".json", t.dir)
	if err != nil {
		err = fmt.Errorf("the scenarios in %s wrote no report (%w): %w\n%s", t.dir, runErr, err, tail(string(out), 30))
	}
	return suite, errors.Join(os.WriteFile(name+".log", out, 0o644), err)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// fileExists says whether path names a file or directory.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
