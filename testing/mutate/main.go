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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/mutate/mutants"
)

// verdict is what one test run said about a mutant.
type verdict struct {
	failed bool
	detail string // the first failed spec or test
}

// workers is how many mutants are tried at once. A killed mutant mostly waits out a scenario's
// Eventually timeout, so two at a time roughly halve the run on two cores.
const workers = 2

// result is what the scenario and the unit tests said about one mutant.
type result struct {
	scenario, unit verdict
	took           time.Duration
}

func main() {
	if err := mutate(); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func mutate() error {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()

	// Against the controller as it is, every scenario named here and the unit tests must pass:
	// otherwise a failure against a mutant would prove nothing.
	var labels []string
	for _, m := range mutants.All {
		if !slices.Contains(labels, m.Scenario) {
			labels = append(labels, m.Scenario)
		}
	}
	for _, args := range [][]string{scenarioArgs(strings.Join(labels, " || ")), unitArgs} {
		v, err := goTest(root, "", args)
		if err != nil {
			return fmt.Errorf("without any mutant, go test %s: %w", strings.Join(args, " "), err)
		}
		if v.failed {
			return fmt.Errorf("without any mutant, %s fails: fix that first", v.detail)
		}
	}

	results := make([]result, len(mutants.All))
	err = harness.Parallel(len(mutants.All), workers, func(i int) error {
		m := mutants.All[i]
		overlay, err := writeOverlay(root, filepath.Join(work, fmt.Sprint(i)), m)
		if err != nil {
			return fmt.Errorf("mutant %q: %w", m.Break, err)
		}
		start := time.Now()
		if results[i].scenario, err = goTest(root, overlay, scenarioArgs(m.Scenario)); err != nil {
			return fmt.Errorf("mutant %q, scenario %s: %w", m.Break, m.Scenario, err)
		}
		results[i].took = time.Since(start)
		if results[i].unit, err = goTest(root, overlay, unitArgs); err != nil {
			return fmt.Errorf("mutant %q, unit tests: %w", m.Break, err)
		}
		fmt.Fprintf(os.Stderr, "mutant %d/%d: %s: %s\n", i+1, len(mutants.All), m.Break, results[i].scenario)
		return nil
	})
	if err != nil {
		return err
	}

	var survivors []string
	fmt.Println("| Mutant | Scenario | Scenario run | Unit tests |")
	fmt.Println("|---|---|---|---|")
	for i, m := range mutants.All {
		r := results[i]
		fmt.Printf("| %s | %s | %s (%.0f s) | %s |\n", m.Break, m.Scenario, r.scenario, r.took.Seconds(), r.unit)
		if !r.scenario.failed {
			survivors = append(survivors, fmt.Sprintf("%q survived %s", m.Break, m.Scenario))
		}
	}
	if len(survivors) > 0 {
		return fmt.Errorf("a scenario passed against the break it exists to catch: %s", strings.Join(survivors, "; "))
	}
	fmt.Printf("\nEvery break failed the scenario that exists to catch it (%d mutants).\n", len(mutants.All))
	return nil
}

// scenarioArgs runs the scenarios labelled by filter on envtest; unitArgs runs the controller's
// unit tests.
func scenarioArgs(filter string) []string {
	return []string{"-count=1", "-timeout=5m", "./scenarios/", "-ginkgo.no-color", "-ginkgo.label-filter=" + filter}
}

var unitArgs = []string{"-count=1", "./controllers/"}

// writeOverlay writes m's mutated files into dir, and the overlay file that `go test -overlay`
// reads, and returns the overlay file's path.
func writeOverlay(root, dir string, m mutants.Mutant) (string, error) {
	mutated, err := m.Apply(root)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	for file, content := range mutated {
		path := filepath.Join(dir, strings.ReplaceAll(file, "/", "_"))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return "", err
		}
		replace[filepath.Join(root, file)] = path
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, overlay, 0o644)
}

// goTest runs go test with args in root, with the overlay unless it is empty, and says whether a
// test failed. Only a failing test counts: a mutant that does not build, or a run that fails
// outside any test (a suite that cannot start its control plane, say), is an error, since it
// proves nothing about the tests.
func goTest(root, overlay string, args []string) (verdict, error) {
	if overlay != "" {
		args = append([]string{"-overlay=" + overlay}, args...)
	}
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil {
		return verdict{}, nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return verdict{}, err
	}
	text := out.String()
	if strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]") {
		return verdict{}, fmt.Errorf("does not build:\n%s", text)
	}
	if failed := firstFailure(text); failed != "" {
		return verdict{failed: true, detail: failed}, nil
	}
	return verdict{}, fmt.Errorf("failed outside any test:\n%s", text)
}

// firstFailure names the first failing Ginkgo spec (an It: a failure in a suite node proves
// nothing about a scenario) or Go test in go test's output.
func firstFailure(out string) string {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		// Ginkgo's summary: "Summarizing 1 Failure:" then "  [FAIL] Sample when … [It] … [labels]",
		// [TIMEDOUT] or [PANICKED] in place of [FAIL].
		if !strings.HasPrefix(line, "Summarizing ") || i+1 >= len(lines) {
			continue
		}
		spec := strings.TrimSpace(lines[i+1])
		if !strings.Contains(spec, " [It] ") {
			return ""
		}
		_, spec, _ = strings.Cut(spec, "] ") // the state
		if cut := strings.LastIndex(spec, " ["); cut > 0 {
			spec = spec[:cut] // the labels
		}
		return strings.Replace(spec, " [It] ", " ", 1)
	}
	for _, line := range lines {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "--- FAIL: ") {
			return strings.Fields(strings.TrimPrefix(t, "--- FAIL: "))[0]
		}
	}
	return ""
}

func (v verdict) String() string {
	if v.failed {
		return "failed: " + v.detail
	}
	return "**passed**"
}
