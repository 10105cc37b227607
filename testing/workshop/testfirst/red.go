package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"example.com/operator-demo/testing/workshop/specreport"
)

// redPaths are what the red commit holds: the specs, the API names they use, what is generated
// from both (the CRD, the catalogue), and the unit tests. Never the code that makes them pass.
var redPaths = []string{"scenarios", "api", "config/crd", ":(glob)controllers/**/*_test.go"}

// red runs the scenario labelled label on envtest and, when it fails inside its specs, commits it
// with the API names it uses and the files generated from them, before any code: the history
// that make test-first reads as written first. It refuses when production code outside api/ has
// uncommitted changes (the code comes after), when the scenario does not compile, or when no
// spec fails.
func red(args []string) error {
	flags := flag.NewFlagSet("red", flag.ContinueOnError)
	label := flags.String("label", "", "the scenario's label (a Ginkgo label filter)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *label == "" {
		return errors.New("usage: make red NAME=<label>")
	}
	repo, err := git("", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	if code, err := uncommittedCode(repo); err != nil || len(code) > 0 {
		return errors.Join(err, fmt.Errorf("the code comes after the red commit, and these production files have uncommitted changes: %s; put them aside first (git stash push -- %s), then make red again",
			strings.Join(code, ", "), strings.Join(code, " ")))
	}
	failedSpecs, passedSpecs, err := runRed(repo, *label)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("%s: the scenario, seen failing\n\nmake red NAME=%s, before the code:\n", *label, *label)
	for _, f := range failedSpecs {
		msg += fmt.Sprintf("- %s\n  failed: %s\n", f.Name, f.Where())
	}
	for _, p := range passedSpecs {
		msg += fmt.Sprintf("- %s\n  passed\n", p)
	}
	if _, err := git(repo, append([]string{"add", "-A", "--"}, redPaths...)...); err != nil {
		return err
	}
	if _, err := git(repo, append([]string{"commit", "-q", "-m", msg, "--"}, redPaths...)...); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	sha, err := git(repo, "rev-parse", "--short", "HEAD")
	if err != nil {
		return err
	}
	fmt.Printf("red: committed %s: %d spec(s) seen failing, before the code\n", sha, len(failedSpecs))
	for _, p := range passedSpecs {
		fmt.Printf("red: %q passed. If it is an existing spec that this behaviour obliges to change, state its rewrite:\n"+
			"  git commit --amend --no-edit --trailer '%s: %s'\n", p, RewriteTrailer, p)
	}
	return nil
}

// uncommittedCode are the production files, other than api/'s, that differ from HEAD or are new.
func uncommittedCode(repo string) ([]string, error) {
	changed, err := git(repo, "diff", "--name-only", "HEAD", "--", "controllers", "cmd")
	if err != nil {
		return nil, err
	}
	added, err := git(repo, "ls-files", "--others", "--exclude-standard", "--", "controllers", "cmd")
	if err != nil {
		return nil, err
	}
	var code []string
	for f := range strings.FieldsSeq(changed + "\n" + added) {
		if isProduction(f) {
			code = append(code, f)
		}
	}
	return code, nil
}

// runRed runs the scenarios labelled label and returns those that failed inside the spec and the
// names of those that passed; an error when none failed or the run proves nothing.
func runRed(repo, label string) (failedSpecs []specreport.Result, passedSpecs []string, err error) {
	dir, err := os.MkdirTemp("", "red-")
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	cmd := exec.Command("go", "test", "-count=1", "./scenarios/", "-ginkgo.label-filter="+label)
	cmd.Dir = repo
	suite, output, runErr, readErr := specreport.Run(cmd, filepath.Join(dir, "red.json"), repo)
	fmt.Fprint(os.Stderr, tail(string(output), 40)+"\n")
	if readErr != nil {
		return nil, nil, fmt.Errorf("the scenarios did not run (%w): %s; a name the API lacks goes into api/ first", runErr, specreport.CompilerCause(string(output), ""))
	}
	if suite.Setup != nil {
		return nil, nil, fmt.Errorf("the suite failed outside any spec (%s: %s), which proves nothing: fix that first", suite.Setup.Name, suite.Setup.Where())
	}
	for _, s := range suite.Specs {
		switch {
		case s.Skipped:
		case s.Failed() && s.InSpec:
			failedSpecs = append(failedSpecs, s)
		case s.Failed():
			return nil, nil, fmt.Errorf("%q failed outside its spec (%s), which proves nothing", s.Name, s.Where())
		default:
			passedSpecs = append(passedSpecs, s.Name)
		}
	}
	switch {
	case len(failedSpecs) == 0 && len(passedSpecs) == 0:
		return nil, nil, fmt.Errorf("no envtest spec has the label %q (a spec that needs a garbage collector runs on make test-e2e only)", label)
	case len(failedSpecs) == 0:
		return nil, nil, fmt.Errorf("every spec labelled %q passed: the operator already behaves so, and nothing is committed (a spec of behaviour the base already has is labelled %s)", label, Characterization)
	}
	return failedSpecs, passedSpecs, nil
}
