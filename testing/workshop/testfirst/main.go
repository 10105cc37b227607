// Command testfirst proves, for the change from a base revision to a head revision, that each
// spec it adds or changes was written before the code that makes it pass. It finds those specs
// (the scenarios' Ginkgo specs by full text, from the suite's own dry runs at both revisions, plus
// any whose body changed; the unit tests under api/ and controllers/ by function), runs each as
// the head has it against the base's production code, where it must fail inside the spec or not
// compile, and against the head, where it must pass. A spec labelled "characterization" (written
// for behaviour the base already has) may pass against the base; the table says so.
//
// It works in checkouts of its own (written by git into a temporary directory): the repository's
// work tree, index and refs are never touched. It prints one table, writes it to -report and, on
// GitHub Actions, to the job summary, and exits 1 naming every spec that passed against the base
// or fails at the head. `make test-first BASE=<rev>` runs it.
//
// `testfirst red -label L` (make red NAME=L) makes the history that the check reads: it runs the
// scenario and, when it fails inside its specs, commits it with the API names it uses, before
// the code.
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

	"example.com/operator-demo/testing/warm"
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
	keep := flag.Bool("keep", false, "keep the checkouts, binaries and logs (their directory is printed)")
	flag.Parse()

	rp, err := run(*base, *head, *keep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test-first:", err)
		os.Exit(2)
	}
	md := rp.markdown()
	fmt.Print(md)
	if err := specreport.Publish(md, *reportPath); err != nil {
		fmt.Fprintln(os.Stderr, "test-first:", err)
		os.Exit(2)
	}
	if failures := rp.failures(); len(failures) > 0 {
		fmt.Fprintf(os.Stderr, "\ntest-first: %d spec(s) do not show test-first:\n  %s\n", len(failures), strings.Join(failures, "\n  "))
		os.Exit(1)
	}
}

// check is one check of a change: the repository, the change's base and head commits, where its
// checkouts go, and the attachment of make envtest-up's control plane, which their envtest runs
// attach to instead of starting a control plane each ("" when none is up).
type check struct{ repo, base, head, work, warm string }

func run(baseRev, headRev string, keep bool) (report, error) {
	c, err := revisions(baseRev, headRev)
	if err != nil {
		return report{}, err
	}
	rp := report{base: short(baseRev, c.base), head: short(headRev, c.head)}
	if rp.production, err = productionChanges(c); err != nil {
		return rp, err
	}
	if c.work, err = os.MkdirTemp("", "test-first-"); err != nil {
		return rp, err
	}
	if keep {
		progress("checkouts, binaries and logs are kept in %s", c.work)
	} else {
		defer func() { _ = os.RemoveAll(c.work) }()
	}
	if attachment := filepath.Join(c.repo, warm.File); fileExists(attachment) {
		c.warm = attachment
		progress("the envtest runs attach to make envtest-up's control plane")
	}
	progress("checking out %s (base), %s (head), and the head's specs on the base's production code; compiling their scenarios", rp.base, rp.head)
	base, err := c.checkOut("base", c.base, "")
	if err != nil {
		return rp, err
	}
	head, err := c.checkOut("head", c.head, "")
	if err != nil {
		return rp, err
	}
	againstBase, err := c.checkOut("against-base", c.head, c.base, production...)
	if err != nil {
		return rp, err
	}
	specs, description, err := changedSpecs(base, head)
	if err != nil {
		return rp, err
	}
	statements, err := readRewrites(c)
	if err != nil {
		return rp, err
	}
	rp.stale = applyRewrites(specs, statements)
	progress("%d spec(s) new or changed; running them against the base's production code", len(specs))
	atBase, err := againstBase.runAll(description, specs)
	if err != nil {
		return rp, fmt.Errorf("against the base: %w", err)
	}
	withAPI, err := c.againstBaseWithHeadAPI(description, specs, atBase)
	if err != nil {
		return rp, fmt.Errorf("against the base with the head's api/: %w", err)
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

// againstBaseWithHeadAPI runs the specs that do not compile against the base once more, against
// the base's behaviour with the head's api/ (production[0]): the names a new spec uses (a reason,
// a field) come with the change, and this run shows whether the spec then fails for the reason
// it should.
func (c check) againstBaseWithHeadAPI(description string, specs []spec, atBase map[string]outcome) (map[string]outcome, error) {
	uncompiledSpecs := slices.DeleteFunc(slices.Clone(specs), func(s spec) bool { return atBase[key(s)].state != uncompiled })
	if len(uncompiledSpecs) == 0 {
		return nil, nil
	}
	progress("%d spec(s) do not compile against the base: running them against it with the head's api/", len(uncompiledSpecs))
	t, err := c.checkOut("against-base-with-head-api", c.head, c.base, production[1:]...)
	if err != nil {
		return nil, err
	}
	return t.runAll(description, uncompiledSpecs)
}

// revisions finds the repository and the commits of the base (its default when "") and the head.
func revisions(baseRev, headRev string) (c check, err error) {
	if c.repo, err = git("", "rev-parse", "--show-toplevel"); err != nil {
		return c, err
	}
	if baseRev == "" {
		if baseRev, err = defaultBase(c.repo, headRev); err != nil {
			return c, err
		}
	}
	if c.base, err = commit(c.repo, baseRev); err != nil {
		return c, err
	}
	c.head, err = commit(c.repo, headRev)
	return c, err
}

// productionChanges are the production files that differ between the base and the head.
func productionChanges(c check) ([]string, error) {
	out, err := git(c.repo, "diff", "--name-only", c.base, c.head)
	if err != nil {
		return nil, err
	}
	var files []string
	for f := range strings.FieldsSeq(out) {
		if isProduction(f) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return files, nil
}

// defaultBase is where a change to head starts: its merge-base with origin/main, else with main.
func defaultBase(repo, head string) (string, error) {
	for _, main := range []string{"origin/main", "main"} {
		if base, err := git(repo, "merge-base", main, head); err == nil {
			return base, nil
		}
	}
	return "", errors.New("no merge-base with origin/main or main: give BASE=<revision>")
}

func commit(repo, rev string) (string, error) {
	return git(repo, "rev-parse", "--verify", rev+"^{commit}")
}

// short names a revision as given, with its commit when that says more.
func short(rev, sha string) string {
	if strings.HasPrefix(sha, rev) {
		return sha[:min(len(sha), 12)]
	}
	return fmt.Sprintf("%s (%s)", rev, sha[:min(len(sha), 12)])
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(exit.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// started is when this run began: each progress line says how long it has run, which is where
// the time goes.
var started = time.Now()

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "test-first: %5.1f s: "+format+"\n", append([]any{time.Since(started).Seconds()}, args...)...)
}
