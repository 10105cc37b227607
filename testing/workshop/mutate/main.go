// Command mutate proves that the scenarios can fail. It breaks the controller in the ways each
// scenario exists to catch (package mutants), one break at a time, and runs that scenario against
// it: a scenario that still passes is not testing its behaviour. It also runs the unit tests
// against each break, to show which layer of the pyramid sees which.
//
// Each break is compiled in with `go test -overlay`, so the working tree is never modified, even
// when a run is interrupted. An edit whose text is no longer in its file fails the run: the
// mutant has gone stale and must follow the code. `make mutate` runs it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"example.com/operator-demo/testing/workshop/mutate/mutants"
	"example.com/operator-demo/testing/workshop/mutate/trial"
	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
)

// result is what the scenario and the unit tests said about one mutant.
type result struct {
	scenario, unit trial.Verdict
	took           time.Duration
}

func main() {
	scenario := flag.String("scenario", "", "try only the breaks that this scenario (its label) exists to catch")
	mutant := flag.String("mutant", "", "try only the breaks whose description contains this text")
	since := flag.String("changed-since", "", "with -scenario or -mutant: also try every break whose lines changed since this revision (the work tree counts)")
	flag.Parse()
	root, err := repo.Root()
	if err == nil {
		var chosen []mutants.Mutant
		if chosen, err = chooseFrom(root, *scenario, *mutant, *since); err == nil {
			err = mutate(root, chosen)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

// chooseFrom chooses among all the mutants of the tree at root, reading the lines changed since
// the revision since (none when "") from git.
func chooseFrom(root, scenario, text, since string) ([]mutants.Mutant, error) {
	touched := map[string][]lineRange{}
	if since != "" && (scenario != "" || text != "") {
		cmd := exec.Command("git", "diff", "-U0", since, "--", "controllers", "api", "cmd")
		cmd.Dir = root
		diff, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git diff %s: %w", since, err)
		}
		touched = changedLines(string(diff))
	}
	var stale error
	spans := func(m mutants.Mutant) []mutants.Span {
		s, err := m.Spans(root)
		stale = errors.Join(stale, err)
		return s
	}
	chosen, err := choose(mutants.All, scenario, text, spans, touched)
	return chosen, errors.Join(err, stale)
}

// choose is the mutants of scenario (all when "") whose break mentions text, and those whose
// lines (spans says where they are) the change touched. A change that edits the lines a break
// rewrites can leave that break breaking nothing, so its scenario must fail against it again.
func choose(all []mutants.Mutant, scenario, text string, spans func(mutants.Mutant) []mutants.Span, touched map[string][]lineRange) ([]mutants.Mutant, error) {
	var out []mutants.Mutant
	var scenarios []string
	for _, m := range all {
		if !slices.Contains(scenarios, m.Scenario) {
			scenarios = append(scenarios, m.Scenario)
		}
		if (scenario == "" || m.Scenario == scenario) && strings.Contains(m.Break, text) || touches(spans(m), touched) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no break of scenario %q mentions %q; scenarios with breaks: %s", scenario, text, strings.Join(scenarios, ", "))
	}
	return out, nil
}

// lineRange is the lines first to last of a file, numbered from 1.
type lineRange struct{ first, last int }

// touches says whether a change that touched these lines touched any of spans.
func touches(spans []mutants.Span, touched map[string][]lineRange) bool {
	for _, s := range spans {
		for _, r := range touched[s.File] {
			if r.first <= s.Last && s.First <= r.last {
				return true
			}
		}
	}
	return false
}

// hunk is a hunk header of a unified diff: its new side starts at line 1 and runs 2 lines.
var hunk = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// changedLines are the lines of each file that `git diff -U0` shows changed, on the new side.
// A hunk that only deletes touches the lines on either side of the gap it leaves.
func changedLines(diff string) map[string][]lineRange {
	out := map[string][]lineRange{}
	var file string
	for line := range strings.SplitSeq(diff, "\n") {
		if name, ok := strings.CutPrefix(line, "+++ b/"); ok {
			file = name
			continue
		}
		m := hunk.FindStringSubmatch(line)
		if m == nil || file == "" {
			continue
		}
		start, _ := strconv.Atoi(m[1])
		count := 1
		if m[2] != "" {
			count, _ = strconv.Atoi(m[2])
		}
		r := lineRange{start, start + count - 1}
		if count == 0 {
			r = lineRange{start, start + 1}
		}
		out[file] = append(out[file], r)
	}
	return out
}

func mutate(root string, chosen []mutants.Mutant) error {
	// The scenario binaries run inside the tree, where the harness finds go.mod.
	work, err := os.MkdirTemp(filepath.Join(root, "bin"), "mutate-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()

	if err := baseline(root, filepath.Join(work, "base"), chosen); err != nil {
		return err
	}
	results := make([]result, len(chosen))
	var g errgroup.Group
	// A killed break mostly waits out a scenario's Eventually timeout: two at a time roughly
	// halve a run on two cores.
	g.SetLimit(2)
	for i, m := range chosen {
		g.Go(func() (err error) {
			results[i], err = try(root, filepath.Join(work, fmt.Sprint(i)), m)
			if err == nil {
				fmt.Fprintf(os.Stderr, "mutant %d/%d: %s: %s\n", i+1, len(chosen), m.Break, results[i].scenario)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return report(chosen, results)
}

// try builds m into the operator, in dir, and runs its scenario and the unit tests against it.
func try(root, dir string, m mutants.Mutant) (result, error) {
	var r result
	mutated, err := m.Apply(root)
	if err != nil {
		return r, fmt.Errorf("mutant %q: %w", m.Break, err)
	}
	overlay := map[string]string{}
	for file, content := range mutated {
		overlay[filepath.Join(root, file)] = content
	}
	if out, err := trial.Build(root, dir, overlay, unit, "./scenarios"); err != nil {
		return r, fmt.Errorf("mutant %q does not build: %w\n%s", m.Break, err, out)
	}
	start := time.Now()
	if r.scenario, err = trial.Scenarios(root, dir, "scenarios", nil, trial.ProvesNothing, "-ginkgo.label-filter="+m.Scenario); err != nil {
		return r, fmt.Errorf("mutant %q, scenario %s: %w", m.Break, m.Scenario, err)
	}
	r.took = time.Since(start)
	if r.unit, err = trial.Unit(root, dir, unit, nil, nil, trial.ProvesNothing); err != nil {
		return r, fmt.Errorf("mutant %q, unit tests: %w", m.Break, err)
	}
	return r, nil
}

// unit is the package of the unit tests that make mutate runs against each break.
const unit = "./controllers"

// baseline runs every scenario that a mutant names, and the unit tests, against the controller
// as it is (built into dir): they must pass, or a failure against a mutant would prove nothing.
func baseline(root, dir string, chosen []mutants.Mutant) error {
	var labels []string
	for _, m := range chosen {
		if !slices.Contains(labels, m.Scenario) {
			labels = append(labels, m.Scenario)
		}
	}
	out, err := trial.Build(root, dir, nil, unit, "./scenarios")
	if err != nil {
		return fmt.Errorf("the operator does not build: %w\n%s", err, out)
	}
	v, err := trial.Scenarios(root, dir, "scenarios", nil, trial.ProvesNothing, "-ginkgo.label-filter="+strings.Join(labels, " || "))
	if err == nil && !v.Failed {
		v, err = trial.Unit(root, dir, unit, nil, nil, trial.ProvesNothing)
	}
	if err != nil {
		return fmt.Errorf("without any mutant: %w", err)
	}
	if v.Failed {
		return fmt.Errorf("without any mutant, %s fails (%s): fix that first", v.Test, v.Where)
	}
	return nil
}

// report prints the table of results and fails if a scenario passed against its mutant.
func report(chosen []mutants.Mutant, results []result) error {
	var survivors []string
	fmt.Println("| Mutant | Scenario | Scenario run: the spec that failed, at its step and line | Unit tests |")
	fmt.Println("|---|---|---|---|")
	for i, m := range chosen {
		r := results[i]
		fmt.Printf("| %s | %s | %s (%.0f s) | %s |\n", m.Break, m.Scenario, specreport.Cell(r.scenario.String()), r.took.Seconds(), specreport.Cell(r.unit.String()))
		if !r.scenario.Failed {
			survivors = append(survivors, fmt.Sprintf("%q survived %s", m.Break, m.Scenario))
		}
	}
	if len(survivors) > 0 {
		return fmt.Errorf("a scenario passed against the break it exists to catch: %s", strings.Join(survivors, "; "))
	}
	fmt.Printf("\nEvery break failed the scenario that exists to catch it (%d of the %d mutants).\n", len(chosen), len(mutants.All))
	return nil
}
