// Command testfirst proves that each spec a change (base..head) adds or changes was written
// first: it fails against the base's production code and passes at the head (docs/test-first.md).
// `testfirst red -label L` (make red) commits a scenario once seen failing, before its code.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/harness/warm"
	"example.com/operator-demo/testing/workshop/specreport"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "red" {
		if err := red(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "red:", err)
			os.Exit(1)
		}
		return
	}
	base := flag.String("base", "", "the revision the change starts from (default: the merge-base of the head with origin/main, else with main)")
	head := flag.String("head", "HEAD", "the revision the change ends at")
	reportPath := flag.String("report", filepath.Join("reports", "test-first.md"), "where to write the table")
	flag.Parse()
	rp, err := run(*base, *head)
	if err == nil {
		md := rp.markdown()
		fmt.Print(md)
		err = specreport.Publish(md, *reportPath)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "test-first:", err)
		os.Exit(2)
	}
	if failures := rp.failures(); len(failures) > 0 {
		fmt.Fprintf(os.Stderr, "\ntest-first: %d spec(s) do not show test-first:\n  %s\n", len(failures), strings.Join(failures, "\n  "))
		os.Exit(1)
	}
}

// check is one change: repository, base and head commits, checkouts' directory, envtest-up's attachment.
type check struct{ repo, base, head, work, warm string }

// revisions finds the repository, the commits (base's default when "") and production changes.
func revisions(baseRev, headRev string) (c check, rp report, err error) {
	if c.repo, err = git("", "rev-parse", "--show-toplevel"); err != nil {
		return c, rp, err
	}
	for _, main := range []string{"origin/main", "main"} {
		if baseRev == "" {
			baseRev, _ = git(c.repo, "merge-base", main, headRev)
		}
	}
	if baseRev == "" {
		return c, rp, errors.New("no merge-base with origin/main or main: give BASE=<revision>")
	}
	revs, err := git(c.repo, "rev-parse", baseRev+"^{commit}", headRev+"^{commit}")
	if err != nil {
		return c, rp, err
	}
	c.base, c.head, _ = strings.Cut(revs, "\n")
	rp.base, rp.head = short(baseRev, c.base), short(headRev, c.head)
	diff, err := git(c.repo, "diff", "--name-only", c.base, c.head)
	rp.production = productionFiles(diff)
	return c, rp, err
}

func run(baseRev, headRev string) (rp report, err error) {
	c, rp, err := revisions(baseRev, headRev)
	if err != nil {
		return rp, err
	}
	if c.work, err = os.MkdirTemp("", "test-first-"); err != nil {
		return rp, err
	}
	defer func() { _ = os.RemoveAll(c.work) }()
	if attachment := filepath.Join(c.repo, warm.File); fileExists(attachment) {
		c.warm = attachment
		progress("the envtest runs attach to make envtest-up's control plane")
	}
	progress("checking out %s (base), %s (head), and the head's specs on the base's production code; compiling their scenarios", rp.base, rp.head)
	base, baseErr := c.checkOut("base", c.base, "")
	head, headErr := c.checkOut("head", c.head, "")
	againstBase, err := c.checkOut("against-base", c.head, c.base)
	if err := errors.Join(baseErr, headErr, err); err != nil {
		return rp, err
	}
	specs, description, err := changedSpecs(base, head)
	if err != nil {
		return rp, err
	}
	log, err := git(c.repo, "log", "--format=%x1e%h%x00%s%x00%(trailers:key="+RewriteTrailer+",valueonly,unfold)", c.base+".."+c.head)
	if err != nil {
		return rp, err
	}
	rp.stale = applyRewrites(specs, log)
	progress("%d spec(s) new or changed; running them against the base's production code", len(specs))
	atBase, err := againstBase.runAll(description, specs)
	if err != nil {
		return rp, fmt.Errorf("against the base: %w", err)
	}
	// The specs that do not compile against the base run again with the head's api/'s new names.
	var withAPI map[string]outcome
	if uncompiledSpecs := slices.DeleteFunc(slices.Clone(specs), func(s spec) bool { return atBase[key(s)].state != uncompiled }); len(uncompiledSpecs) > 0 {
		progress("%d spec(s) do not compile against the base: running them against it with the head's api/", len(uncompiledSpecs))
		t, err := c.checkOut("against-base-with-head-api", c.head, c.base, production[1:]...)
		if err == nil {
			withAPI, err = t.runAll(description, uncompiledSpecs)
		}
		if err != nil {
			return rp, fmt.Errorf("against the base with the head's api/: %w", err)
		}
	}
	progress("running them at the head")
	atHead, err := head.runAll(description, specs)
	if err != nil {
		return rp, fmt.Errorf("at the head: %w", err)
	}
	rp.rows, err = c.judgeAll(base, head, specs, atBase, withAPI, atHead)
	rp.took = time.Since(started)
	return rp, err
}

// productionFiles are the production files among the paths in out, sorted.
func productionFiles(out string) []string {
	files := slices.DeleteFunc(strings.Fields(out), func(f string) bool { return !isProduction(f) })
	slices.Sort(files)
	return files
}

// short names a revision as given, with its commit when that says more.
func short(rev, sha string) string {
	if strings.HasPrefix(sha, rev) {
		return sha[:min(len(sha), 12)]
	}
	return fmt.Sprintf("%s (%s)", rev, sha[:min(len(sha), 12)])
}

func git(dir string, args ...string) (string, error) {
	var stderr strings.Builder
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stderr = dir, &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// started is when this run began: each progress line says how long it has run.
var started = time.Now()

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "test-first: %5.1f s: "+format+"\n", append([]any{time.Since(started).Seconds()}, args...)...)
}

// redPaths are what the red commit holds: specs, unit tests, the API and what is generated from them; never the code.
var redPaths = []string{"scenarios", "api", "config/crd", ":(glob)controllers/**/*_test.go"}

// red runs the scenario labelled -label and, once it fails inside its specs, commits redPaths.
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
	// Each line is "XY path"; productionFiles keeps the paths.
	status, err := git(repo, "status", "--porcelain", "--untracked-files=all", "--no-renames", "--", "controllers", "cmd")
	if code := productionFiles(status); err != nil || len(code) > 0 {
		return errors.Join(err, fmt.Errorf("the code comes after the red commit, and these production files have uncommitted changes: %s; put them aside first (git stash push -- %s), then make red again",
			strings.Join(code, ", "), strings.Join(code, " ")))
	}
	failedSpecs, passedSpecs, err := runRed(repo, *label)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("%s: the scenario, seen failing\n\nmake red NAME=%s, before the code:\n%s", *label, *label, strings.Join(failedSpecs, ""))
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

// runRed runs the scenarios labelled label on envtest: the failures as the red commit lists them, and the passed specs.
func runRed(repo, label string) (failedSpecs, passedSpecs []string, err error) {
	dir, err := os.MkdirTemp("", "red-")
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	cmd := exec.Command("go", "test", "-count=1", "./scenarios/", "-ginkgo.label-filter="+label)
	cmd.Dir = repo
	suite, output, runErr, err := specreport.Run(cmd, filepath.Join(dir, "red.json"), repo)
	fmt.Fprint(os.Stderr, e2e.Tail(string(output), 40)+"\n")
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("the scenarios did not run (%w): %s; a name the API lacks goes into api/ first", runErr, specreport.CompilerCause(string(output), ""))
	case suite.Setup != nil:
		return nil, nil, fmt.Errorf("the suite failed outside any spec (%s: %s), which proves nothing: fix that first", suite.Setup.Name, suite.Setup.Where())
	}
	for _, s := range suite.Specs {
		switch {
		case s.Skipped:
		case s.Failed() && s.InSpec:
			failedSpecs = append(failedSpecs, fmt.Sprintf("- %s\n  failed: %s\n", s.Name, s.Where()))
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
