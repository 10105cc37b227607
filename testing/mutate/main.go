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
	"strings"
	"time"

	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/mutate/mutants"
)

// verdict is what one test run said about a mutant.
type verdict struct {
	killed bool
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
	root, err := controlplane.RepoRoot()
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		fail(err)
	}
	defer func() { _ = os.RemoveAll(work) }()

	results := make([]result, len(mutants.All))
	err = harness.Parallel(len(mutants.All), workers, func(i int) error {
		m := mutants.All[i]
		overlay, err := writeOverlay(root, filepath.Join(work, fmt.Sprint(i)), m)
		if err != nil {
			return err
		}
		start := time.Now()
		if results[i].scenario, err = run(root, "go", "test", "-overlay="+overlay, "-count=1", "-timeout=5m", "./scenarios/",
			"-ginkgo.no-color", "-ginkgo.label-filter="+m.Scenario); err != nil {
			return fmt.Errorf("mutant %q, scenario %s: %w", m.Break, m.Scenario, err)
		}
		results[i].took = time.Since(start)
		if results[i].unit, err = run(root, "go", "test", "-overlay="+overlay, "-count=1", "./controllers/"); err != nil {
			return fmt.Errorf("mutant %q, unit tests: %w", m.Break, err)
		}
		fmt.Fprintf(os.Stderr, "mutant %d/%d: %s: %s\n", i+1, len(mutants.All), m.Break, results[i].scenario)
		return nil
	})
	if err != nil {
		fail(err)
	}

	var survivors []string
	fmt.Println("| Mutant | Scenario | Scenario run | Unit tests |")
	fmt.Println("|---|---|---|---|")
	for i, m := range mutants.All {
		r := results[i]
		fmt.Printf("| %s | %s | %s (%.0f s) | %s |\n", m.Break, m.Scenario, r.scenario, r.took.Seconds(), r.unit)
		if !r.scenario.killed {
			survivors = append(survivors, fmt.Sprintf("%q survived %s", m.Break, m.Scenario))
		}
	}
	if len(survivors) > 0 {
		fail(fmt.Errorf("a scenario passed against the break it exists to catch: %s", strings.Join(survivors, "; ")))
	}
	fmt.Printf("\nEvery scenario failed against the break it exists to catch (%d mutants).\n", len(mutants.All))
}

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
		path := filepath.Join(dir, filepath.Base(file))
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

// run runs a go test command in root and says whether it failed on a test. A mutant that does not
// build, or a run that fails before any test, is an error: it proves nothing about the tests.
func run(root string, name string, args ...string) (verdict, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil {
		return verdict{}, nil // every test passed: the mutant survived
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return verdict{}, err
	}
	text := out.String()
	if strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]") {
		return verdict{}, fmt.Errorf("the mutant does not build:\n%s", text)
	}
	if failed := firstFailure(text); failed != "" {
		return verdict{killed: true, detail: failed}, nil
	}
	return verdict{}, fmt.Errorf("failed without a failing test:\n%s", text)
}

// firstFailure names the first failing Ginkgo spec or Go test in go test's output.
func firstFailure(out string) string {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		// Ginkgo's summary: "Summarizing 1 Failure:" then "  [FAIL] Sample when … [It] …".
		if strings.HasPrefix(line, "Summarizing ") && i+1 < len(lines) {
			spec := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i+1]), "[FAIL]"))
			if cut := strings.LastIndex(spec, " ["); cut > 0 {
				spec = spec[:cut] // the labels
			}
			spec = strings.Replace(spec, " [It] ", " ", 1)
			return spec
		}
	}
	for _, line := range lines {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "--- FAIL: ") {
			return strings.Fields(strings.TrimPrefix(t, "--- FAIL: "))[0]
		}
	}
	return ""
}

func (v verdict) String() string {
	if v.killed {
		return "failed: " + v.detail
	}
	return "**passed**"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(1)
}
