// Command testfirst proves that each spec a change (base..head) adds or changes was written
// first: it fails against the base's production code and passes at the head (docs/test-first.md).
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"example.com/operator-demo/testing/harness/warm"
	"example.com/operator-demo/testing/workshop/mutate/sweeper"
	"example.com/operator-demo/testing/workshop/repo"
)

func main() {
	base := flag.String("base", "", "the revision the change starts from (make test-first: BASE, else the merge-base with origin/main, else main)")
	head := flag.String("head", "HEAD", "the revision the change ends at")
	flag.Parse()
	rp, err := run(*base, *head)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test-first:", err)
		os.Exit(2)
	}
	fmt.Print(rp.markdown())
	if failures := rp.failures(); len(failures) > 0 {
		fmt.Fprintf(os.Stderr, "\ntest-first: %d spec(s) do not show test-first:\n  %s\n", len(failures), strings.Join(failures, "\n  "))
		os.Exit(1)
	}
}

// check is one change: repository, base and head commits, checkouts' directory, envtest-up's attachment.
type check struct{ repo, base, head, work, warm string }

// revisions finds the repository, the commits and production changes.
func revisions(baseRev, headRev string) (c check, rp report, err error) {
	if baseRev == "" {
		return c, rp, errors.New("no base revision: give BASE=<revision> (make test-first's default, the merge-base with origin/main or main, found none)")
	}
	if c.repo, err = repo.Root(); err != nil {
		return c, rp, err
	}
	revs, err := repo.Git(c.repo, "rev-parse", baseRev+"^{commit}", headRev+"^{commit}")
	if err != nil {
		return c, rp, err
	}
	c.base, c.head, _ = strings.Cut(revs, "\n")
	rp.base, rp.head = c.base[:12], c.head[:12]
	diff, err := repo.Git(c.repo, append([]string{"diff", "--name-only", c.base, c.head}, productionSpec(production...)...)...)
	rp.production = strings.Fields(diff) // sorted by git
	return c, rp, err
}

// warmAttachment is the attachment of the warm control plane the envtest runs attach to when it is
// up: the one ENVTEST_WARM names (a repository with none of its own: the selftest's throwaway
// histories share one), else make envtest-up's in repo.
func warmAttachment(repo string) string {
	return cmp.Or(os.Getenv(warm.Env), filepath.Join(repo, warm.File))
}

// trailers are the commits of the change, each with its subject and the values of its trailers key,
// as statements reads them.
func (c check) trailers(key string) (string, error) {
	return repo.Git(c.repo, "log", "--format=%x1e%h%x00%s%x00%(trailers:key="+key+",valueonly,unfold)", c.base+".."+c.head)
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
	c.warm = warmAttachment(c.repo)
	progress("checking out %s (base), %s (head), and the head's specs on the base's production code; compiling their scenarios", rp.base, rp.head)
	base, baseErr := c.checkOut("base", c.base, "")
	head, headErr := c.checkOut("head", c.head, "")
	againstBase, err := c.checkOut("against-base", c.head, c.base, production...)
	if err := errors.Join(baseErr, headErr, err); err != nil {
		return rp, err
	}
	specs, gone, description, err := changedSpecs(base, head)
	if err != nil {
		return rp, err
	}
	listedAtBase, baseErr := equivalents(base.dir)
	listedAtHead, headErr := equivalents(head.dir)
	rewrites, rewritesErr := c.trailers(RewriteTrailer)
	removals, removalsErr := c.trailers(RemovedTrailer)
	equivalences, err := c.trailers(EquivalentTrailer)
	if err := errors.Join(baseErr, headErr, rewritesErr, removalsErr, err); err != nil {
		return rp, err
	}
	rp.equivalents = newEquivalents(listedAtBase, listedAtHead)
	rp.stale = slices.Concat(applyRewrites(specs, rewrites), applyRemovals(gone, removals), applyEquivalents(rp.equivalents, equivalences))
	progress("%d spec(s) new or changed, %d removed; running the new and changed against the base's production code", len(specs), len(gone))
	atBase, err := againstBase.runAll(description, specs)
	if err != nil {
		return rp, fmt.Errorf("against the base: %w", err)
	}
	// The specs that do not compile against the base run again with the head's api/'s new names.
	withAPI, err := c.runAgain("against-base-with-head-api", "spec(s) do not compile against the base: running them against it with the head's api/",
		production[1:], description, specs, func(s spec) bool { return atBase[key(s)].state == uncompiled })
	if err != nil {
		return rp, fmt.Errorf("against the base with the head's api/: %w", err)
	}
	// The scenarios that still do not compile, where what the suite wires (its operator, in
	// scenarios/samples) names what the change adds to controllers/ or cmd/, run once more against
	// the base's behaviour with the head's api/, as the base's scenarios wire it.
	wired, err := c.runAgain("against-base-as-base-wires-it", "scenario(s) do not compile against the base even with the head's api/: running them against it with the head's api/, as the base's scenarios wire it",
		append(slices.Clone(production[1:]), wiring), description, specs, func(s spec) bool { return s.kind == scenario && withAPI[key(s)].state == uncompiled })
	if err != nil {
		return rp, fmt.Errorf("against the base with the head's api/, as the base wires its scenarios: %w", err)
	}
	progress("running them at the head")
	atHead, err := head.runAll(description, specs)
	if err != nil {
		return rp, fmt.Errorf("at the head: %w", err)
	}
	for _, s := range specs {
		rp.rows = append(rp.rows, judge(s, atBase[key(s)], withAPI[key(s)], wired[key(s)], atHead[key(s)]))
	}
	if err := c.tryBreaks(head, rp.rows, listedAtHead); err != nil {
		return rp, fmt.Errorf("at the head, against the breaks its specs reach: %w", err)
	}
	for _, s := range gone {
		rp.rows = append(rp.rows, judgeRemoval(s))
	}
	rp.took = time.Since(started)
	return rp, nil
}

// runAgain runs the specs that again keeps, in a checkout of the head with the base's production
// under paths, named name, saying how many and what: their outcomes, by key (none when it keeps
// none).
func (c check) runAgain(name, what string, paths []string, description string, specs []spec, again func(spec) bool) (map[string]outcome, error) {
	chosen := slices.DeleteFunc(slices.Clone(specs), func(s spec) bool { return !again(s) })
	if len(chosen) == 0 {
		return nil, nil
	}
	progress("%d %s", len(chosen), what)
	t, err := c.checkOut(name, c.head, c.base, paths...)
	if err != nil {
		return nil, err
	}
	return t.runAll(description, chosen)
}

// tryBreaks judges the rows that need it by the breaks of the head's production code that their
// specs reach: a characterization spec must fail against one, tried alone up to the first that
// fails it; a rewritten spec leaves each killed by a test that reaches it, or listed in equivalent.
// The breaks are built once, into the binaries of the test packages those rows need.
func (c check) tryBreaks(head *checkout, rows []row, equivalent map[string]string) error {
	var pkgs []string
	chosen := make([]*row, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		switch needs := r.needs(); {
		case needs == noBreaks:
			continue
		case !slices.Contains(swept, r.spec.tier):
			r.unswept()
			continue
		case needs == guarded:
			pkgs = append(pkgs, sweeper.OperatorTests()...)
		default:
			pkgs = append(pkgs, r.spec.pkg)
		}
		chosen = append(chosen, r)
	}
	if len(chosen) == 0 {
		return nil
	}
	progress("%d spec(s) to try against the breaks of the head's production code that they reach: building the breaks in", len(chosen))
	tree, err := sweeper.Open(head.dir, filepath.Join(c.work, "breaks"), []string{warm.Env + "=" + c.warm}, pkgs)
	if err != nil {
		return err
	}
	for _, r := range chosen {
		spec := sweeper.Spec{Pkg: r.spec.pkg, Name: r.spec.name}
		if r.needs() == alone {
			progress("%s: against the breaks it reaches, alone, up to the first that fails it", spec)
			reached, tried, err := tree.FailsAlone(spec)
			if err != nil {
				return err
			}
			r.failsAlone(reached, tried)
			continue
		}
		progress("%s: the breaks it reaches, each against the tests that reach it", spec)
		verdicts, err := tree.Guarded(spec)
		if err != nil {
			return err
		}
		r.guardedBy(verdicts, equivalent)
	}
	return nil
}

// started is when this run began: each progress line says how long it has run.
var started = time.Now()

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "test-first: %5.1f s: "+format+"\n", append([]any{time.Since(started).Seconds()}, args...)...)
}
