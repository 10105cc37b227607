package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"example.com/operator-demo/testing/tiers"
	"example.com/operator-demo/testing/warm"
	"example.com/operator-demo/testing/workshop/specreport"
)

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

// warmAttachment is the attachment of the repository's warm control plane (make envtest-up),
// when one is up: the envtest runs of every checkout attach to it, applying their own CRDs, instead
// of starting a control plane each.
var warmAttachment string

// runnable are the tiers a scenario can run on here (kind needs Docker), cheapest first: a spec
// runs on the first that its labels allow.
var runnable = tiers.All[:2]

// tree is one checkout that specs run in; work is where its binaries and reports go.
type tree struct {
	dir, work string
	// scenarios is the compiled scenario suite, or "" with the compiler's errors in uncompiled.
	scenarios, uncompiled string
}

func newTree(dir, work string) (*tree, error) {
	t := &tree{dir: dir, work: work}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	if !fileExists(filepath.Join(dir, "scenarios")) {
		return t, nil
	}
	bin := filepath.Join(work, "scenarios.test")
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

// goCmd runs the go subcommand in the tree and returns its combined output. -trimpath keeps the
// tree's location out of what is compiled, so the Go build cache serves every tree with the
// same sources, whatever directory it is in.
func (t *tree) goCmd(subcommand string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{subcommand, "-trimpath"}, args...)...)
	cmd.Dir = t.dir
	return cmd.CombinedOutput()
}

// listScenarios lists the tree's scenario specs with a dry run on each tier: nothing runs, no
// control plane starts. A tree without scenarios lists none.
func (t *tree) listScenarios() ([]listedSpec, string, error) {
	if t.uncompiled != "" {
		return nil, "", fmt.Errorf("the scenarios do not compile in %s: %s", t.dir, specreport.CompilerCause(t.uncompiled, ""))
	}
	if t.scenarios == "" {
		return nil, "", nil
	}
	byName := map[string]*listedSpec{}
	var order []string
	var description string
	for _, tier := range runnable {
		suite, err := t.runSuite(tier.Environment, "dry-run-"+fileName(tier.Name), "-ginkgo.dry-run")
		if err != nil {
			return nil, "", err
		}
		description = suite.Description
		for _, s := range suite.Specs {
			l, ok := byName[s.Name]
			if !ok {
				l = &listedSpec{name: s.Name, labels: s.Labels, file: s.File, line: s.Line}
				byName[s.Name] = l
				order = append(order, s.Name)
			}
			if s.Passed {
				l.tiers = append(l.tiers, tier.Name)
			}
		}
	}
	out := make([]listedSpec, 0, len(order))
	for _, name := range order {
		out = append(out, *byName[name])
	}
	return out, description, nil
}

// runScenarios runs the specs of the suite on tier, and says how each ended, by name.
func (t *tree) runScenarios(tier, description string, specs []spec) (map[string]outcome, error) {
	if t.uncompiled != "" {
		return doesNotCompile(specs, t.uncompiled), nil
	}
	names := namesOf(specs)
	i := slices.IndexFunc(runnable, func(x tiers.Tier) bool { return x.Name == tier })
	if i < 0 {
		return nil, fmt.Errorf("no tier %q", tier)
	}
	env := slices.Clone(runnable[i].Environment)
	envtest := i == 0
	if envtest && warmAttachment != "" {
		env = append(env, warm.Env+"="+warmAttachment)
	}
	if !envtest {
		manager, none := t.operatorBinary()
		if manager == "" {
			return all(names, none), nil
		}
		env = append(env, "E2E_OPERATOR_BINARY="+manager)
	}
	suite, err := t.runSuite(env, "run-"+fileName(tier), "-ginkgo.focus="+focus(description, names))
	if err != nil {
		return nil, err
	}
	if suite.Setup != nil {
		return nil, fmt.Errorf("the suite failed outside any spec in %s (%s), which proves nothing: %s", t.dir, suite.Setup.Name, suite.Setup.Where())
	}
	out := all(names, notRun)
	for _, s := range suite.Specs {
		if _, named := out[s.Name]; named {
			out[s.Name] = outcomeOf(s)
		}
	}
	return out, nil
}

// operatorBinary builds the tree's manager for the local e2e tier, which runs the operator as a
// process; when it cannot, it returns "" and the outcome that every spec on that tier then has.
func (t *tree) operatorBinary() (string, outcome) {
	if !fileExists(filepath.Join(t.dir, "cmd")) {
		return "", outcome{broken, "the e2e tier runs the operator built from cmd/, which this revision lacks"}
	}
	manager := filepath.Join(t.dir, "bin", "manager")
	if b, err := t.goCmd("build", "-o", manager, "./cmd"); err != nil {
		return "", outcome{uncompiled, "the manager does not compile: " + specreport.CompilerCause(string(b), "")}
	}
	return manager, outcome{}
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

// doesNotCompile is the outcome of each spec whose package the compiler rejected with errors:
// the error that says why, for the spec's own file.
func doesNotCompile(specs []spec, errors string) map[string]outcome {
	out := make(map[string]outcome, len(specs))
	for _, s := range specs {
		out[s.name] = outcome{uncompiled, "does not compile: " + specreport.CompilerCause(errors, s.file)}
	}
	return out
}

func namesOf(specs []spec) []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	return names
}

// all gives every name the same outcome.
func all(names []string, o outcome) map[string]outcome {
	out := make(map[string]outcome, len(names))
	for _, n := range names {
		out[n] = o
	}
	return out
}

// runSuite runs the compiled scenarios with env and flags, and reads Ginkgo's JSON report.
// A run whose specs fail is no error: the report says which.
func (t *tree) runSuite(env []string, name string, flags ...string) (specreport.Suite, error) {
	report := filepath.Join(t.work, name+".json")
	cmd := exec.Command(t.scenarios, append([]string{"-test.timeout=30m", "-ginkgo.no-color", "-ginkgo.json-report=" + report}, flags...)...)
	// From the package's directory, as go test runs it: the harness finds the tree from there.
	cmd.Dir = filepath.Join(t.dir, "scenarios")
	cmd.Env = append(os.Environ(), env...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	runErr := cmd.Run()
	if err := os.WriteFile(filepath.Join(t.work, name+".log"), output.Bytes(), 0o644); err != nil {
		return specreport.Suite{}, err
	}
	suite, err := specreport.Ginkgo(report, t.dir)
	if err != nil {
		return suite, fmt.Errorf("the scenarios in %s wrote no report (%w): %w\n%s", t.dir, runErr, err, tail(output.String(), 30))
	}
	return suite, nil
}

// fileName is a tier's name as a file name: "e2e local" is e2e-local.
func fileName(tier string) string { return strings.ReplaceAll(tier, " ", "-") }

// focus is the regular expression that Ginkgo's --focus matches against exactly the named specs:
// it matches the suite's description and a spec's full text, joined by a space.
func focus(description string, names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return "^" + regexp.QuoteMeta(description) + " (?:" + strings.Join(quoted, "|") + ")$"
}

// runUnitTests runs the test functions of pkg and says how each ended, by name.
func (t *tree) runUnitTests(pkg string, specs []spec) (map[string]outcome, error) {
	names := namesOf(specs)
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	events, runErr := t.goCmd("test", "-count=1", "-json", "-run=^(?:"+strings.Join(quoted, "|")+")$", pkg)
	tests, buildErrors, err := specreport.GoTest(events)
	if err != nil {
		return nil, errors.Join(err, runErr)
	}
	for _, errs := range buildErrors {
		return doesNotCompile(specs, errs), nil
	}
	out := all(names, notRun)
	for _, r := range tests.Specs {
		if _, named := out[r.Name]; named {
			out[r.Name] = outcomeOf(r)
		}
	}
	return out, nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
