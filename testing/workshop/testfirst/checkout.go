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

// production are the paths whose files, other than tests, make up the operator: what a spec
// proves something about. The base's are laid under the head's specs. The first, api/, holds the
// API's names (types, fields, reasons), which a new spec may need just to compile.
var production = []string{"api", "controllers", "cmd", "config/crd"}

// isProduction says whether the file at path (relative to the tree, with slashes) is production
// code, of the paths under (all of production when none are given).
func isProduction(path string, under ...string) bool {
	if len(under) == 0 {
		under = production
	}
	return !strings.HasSuffix(path, "_test.go") && slices.ContainsFunc(under, func(p string) bool {
		return path == p || strings.HasPrefix(path, p+"/")
	})
}

// checkout is one tree that specs run in, written out of git (never the repository's own work
// tree), with its scenarios compiled.
type checkout struct {
	// dir is the tree; work is where its binaries, reports and logs go.
	dir, work string
	// warm is the attachment of make envtest-up's control plane, or "".
	warm string
	// scenarios is the compiled scenario suite, or "" with the compiler's errors in uncompiled.
	scenarios, uncompiled string
}

// checkOut writes rev into a tree of its own, with the production code under paths taken from
// the revision productionOf instead when one is given, and compiles its scenarios: the base and
// the head are rev alone; the head's specs against the base's production code are the head with
// the base's production code.
func (c check) checkOut(name, rev, productionOf string, paths ...string) (*checkout, error) {
	t := &checkout{dir: filepath.Join(c.work, name, "tree"), work: filepath.Join(c.work, name), warm: c.warm}
	fromRev := func(path string) bool { return productionOf == "" || !isProduction(path, paths...) }
	if err := materialize(c.repo, rev, t.dir, fromRev); err != nil {
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
	if out, err := t.goCmd("test", "-c", "-o", bin, "./scenarios"); err != nil {
		if strings.Contains(string(out), "too many errors") {
			// The compiler stops at ten errors; the cause may come later (-e: all of them).
			out, _ = t.goCmd("test", "-c", "-gcflags=-e", "-o", bin, "./scenarios")
		}
		t.uncompiled = specreport.CompilerErrors(string(out))
		return t, nil
	}
	t.scenarios = bin
	return t, nil
}

// materialize writes the files of rev that keep keeps (by their path, with slashes) into dir,
// through an index of its own: no work tree is added, no index or ref of the repository changes.
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
	// none: it was not run in that tree (no run was needed).
	none state = iota
	// passed: it ran and passed.
	passed
	// failed: it ran and failed in its own body or setup.
	failed
	// uncompiled: its package does not compile in that tree.
	uncompiled
	// broken: it failed outside its body (suite setup, cleanup), or did not run: that proves nothing.
	broken
)

// outcome is how a spec ended in one tree, and the line that says why.
type outcome struct {
	state  state
	detail string
}

// runnable are the tiers a scenario can run on here, cheapest first: every tier but kind, which
// needs a Docker engine. A spec runs on the first that its labels allow.
var runnable = slices.DeleteFunc(slices.Clone(tiers.All), func(t tiers.Tier) bool { return t.Name == "e2e kind" })

// envtest is the tier that runs the operator in the test process, on a control plane of its own
// or make envtest-up's; the others run it as a process, built from the tree's cmd/.
const envtest = "envtest"

// goCmd runs the go subcommand in the tree and returns its combined output. -trimpath keeps the
// tree's location out of what is compiled, so the Go build cache serves every tree with the
// same sources, whatever directory it is in.
func (t *checkout) goCmd(subcommand string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{subcommand, "-trimpath"}, args...)...)
	cmd.Dir = t.dir
	return cmd.CombinedOutput()
}

// listScenarios lists the tree's scenario specs with a dry run on each tier it can run here:
// nothing runs, no control plane starts. A tree without scenarios lists none. description is the
// suite's, which Ginkgo's focus matches.
func (t *checkout) listScenarios() (specs []spec, description string, err error) {
	if t.uncompiled != "" {
		return nil, "", fmt.Errorf("the scenarios do not compile in %s: %s", t.dir, specreport.CompilerCause(t.uncompiled, ""))
	}
	if t.scenarios == "" {
		return nil, "", nil
	}
	var dryRuns []dryRun
	for _, tier := range runnable {
		suite, err := t.runSuite(tier.Environment, "dry-run-"+fileName(tier.Name), "-ginkgo.dry-run")
		if err != nil {
			return nil, "", err
		}
		dryRuns = append(dryRuns, dryRun{tier.Name, suite})
		description = suite.Description
	}
	specs, err = scenarioSpecs(t.dir, dryRuns)
	return specs, description, err
}

// runAll runs specs in the tree, the scenarios of each tier together and the unit tests of each
// package together, and says how each ended, by key.
func (t *checkout) runAll(description string, specs []spec) (map[string]outcome, error) {
	// A run is a tier's scenarios or a package's unit tests, named for the tier or the package.
	runs := map[string][]spec{}
	var order []string
	for _, s := range specs {
		run := s.tier
		if s.kind == unit {
			run = s.pkg
		}
		if run != "" && runs[run] == nil {
			order = append(order, run)
		}
		runs[run] = append(runs[run], s)
	}
	out := map[string]outcome{}
	for _, run := range order {
		var ended func(spec) outcome
		var err error
		if runs[run][0].kind == unit {
			ended, err = t.runUnitTests(run, runs[run])
		} else {
			ended, err = t.runScenarios(run, description, runs[run])
		}
		if err != nil {
			return nil, err
		}
		for _, s := range runs[run] {
			out[key(s)] = ended(s)
		}
	}
	return out, nil
}

// runScenarios runs the specs of the suite on the tier named tier, and says how each ended.
func (t *checkout) runScenarios(tier, description string, specs []spec) (func(spec) outcome, error) {
	if t.uncompiled != "" {
		return doesNotCompile(t.uncompiled), nil
	}
	names := namesOf(specs)
	i := slices.IndexFunc(runnable, func(x tiers.Tier) bool { return x.Name == tier })
	if i < 0 {
		return nil, fmt.Errorf("no tier %q", tier)
	}
	env := slices.Clone(runnable[i].Environment)
	switch {
	case tier != envtest:
		manager, none := t.operatorBinary()
		if manager == "" {
			return func(spec) outcome { return none }, nil
		}
		env = append(env, "E2E_OPERATOR_BINARY="+manager)
	case t.warm != "":
		env = append(env, warm.Env+"="+t.warm)
	}
	suite, err := t.runSuite(env, "run-"+fileName(tier), "-ginkgo.focus="+specreport.Focus(description, names))
	if err != nil {
		return nil, err
	}
	if suite.Setup != nil {
		return nil, fmt.Errorf("the suite failed outside any spec in %s (%s), which proves nothing: %s", t.dir, suite.Setup.Name, suite.Setup.Where())
	}
	return ended(suite.Specs), nil
}

// operatorBinary builds the tree's manager for the local e2e tier, which runs the operator as a
// process; when it cannot, it returns "" and the outcome that every spec on that tier then has.
func (t *checkout) operatorBinary() (string, outcome) {
	if !fileExists(filepath.Join(t.dir, "cmd")) {
		return "", outcome{broken, "the e2e tier runs the operator built from cmd/, which this revision lacks"}
	}
	manager := filepath.Join(t.dir, "bin", "manager")
	if b, err := t.goCmd("build", "-o", manager, "./cmd"); err != nil {
		return "", outcome{uncompiled, "the manager does not compile: " + specreport.CompilerCause(string(b), "")}
	}
	return manager, outcome{}
}

// ended is how a spec ended, as results say: one they leave out did not run.
func ended(results []specreport.Result) func(spec) outcome {
	return func(s spec) outcome {
		if i := slices.IndexFunc(results, func(r specreport.Result) bool { return r.Name == s.name }); i >= 0 {
			return outcomeOf(results[i])
		}
		return notRun
	}
}

// outcomeOf is how a spec or test ended, as its report says.
func outcomeOf(r specreport.Result) outcome {
	switch {
	case r.Passed:
		return outcome{state: passed}
	case r.Failed() && r.InSpec:
		return outcome{failed, r.Where()}
	case r.Failed():
		return outcome{broken, "failed outside the spec: " + r.Where()}
	}
	return notRun
}

// notRun is the outcome of a spec that its run left out.
var notRun = outcome{broken, "did not run"}

// doesNotCompile is the outcome of a spec whose package the compiler rejected with errors: the
// error that says why, for the spec's own file.
func doesNotCompile(errors string) func(spec) outcome {
	return func(s spec) outcome {
		return outcome{uncompiled, "does not compile: " + specreport.CompilerCause(errors, s.file)}
	}
}

func namesOf(specs []spec) []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	return names
}

// runSuite runs the compiled scenarios with env and flags, and reads Ginkgo's JSON report.
// A run whose specs fail is no error: the report says which.
func (t *checkout) runSuite(env []string, name string, flags ...string) (specreport.Suite, error) {
	cmd := exec.Command(t.scenarios, append([]string{"-test.timeout=30m"}, flags...)...)
	// From the package's directory, as go test runs it: the harness finds the tree from there.
	cmd.Dir, cmd.Env = filepath.Join(t.dir, "scenarios"), append(os.Environ(), env...)
	suite, out, runErr, err := specreport.Run(cmd, filepath.Join(t.work, name+".json"), t.dir)
	if err != nil {
		err = fmt.Errorf("the scenarios in %s wrote no report (%w): %w\n%s", t.dir, runErr, err, tail(string(out), 30))
	}
	return suite, errors.Join(os.WriteFile(filepath.Join(t.work, name+".log"), out, 0o644), err)
}

// fileName is a tier's name as a file name: "e2e local" is e2e-local.
func fileName(tier string) string { return strings.ReplaceAll(tier, " ", "-") }

// runUnitTests runs the test functions of pkg and says how each ended.
func (t *checkout) runUnitTests(pkg string, specs []spec) (func(spec) outcome, error) {
	events, runErr := t.goCmd("test", "-count=1", "-json", "-run=^"+specreport.AnyOf(namesOf(specs))+"$", pkg)
	tests, buildErrors, err := specreport.GoTest(events)
	if err != nil {
		return nil, errors.Join(err, runErr)
	}
	for _, errs := range buildErrors {
		return doesNotCompile(errs), nil
	}
	return ended(tests.Specs), nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
