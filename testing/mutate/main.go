// Command mutate proves that the scenarios can fail. It breaks the controller in the ways each
// scenario exists to catch, one break (a mutant) at a time, and runs that scenario against it: a
// scenario that still passes is not testing its behaviour. It also runs the unit tests against
// each mutant, to show which layer of the pyramid sees which break.
//
// Mutants are compiled in with `go test -overlay`, so the working tree is never modified, even
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
)

// edit replaces the one occurrence of from in file (relative to the repository root) with to.
type edit struct{ file, from, to string }

// mutant is one way to break the controller, and the scenario (by label) that must catch it.
type mutant struct {
	name     string
	scenario string
	edits    []edit
}

const (
	controllerGo = "controllers/sample_controller.go"
	configMapGo  = "controllers/sample_configmap.go"
	statusGo     = "controllers/sample_status.go"
)

var mutants = []mutant{
	{"the ConfigMap's own Create event reconciles the Sample again", "create",
		[]edit{{controllerGo, "CreateFunc: func(event.CreateEvent) bool { return false },", "CreateFunc: func(event.CreateEvent) bool { return true },"}}},
	{"every pass writes the ConfigMap, changed or not", "skip-when-equal",
		[]edit{{configMapGo, "return merged, dataChanged || labelsChanged", "return merged, dataChanged || labelsChanged || true"}}},
	{"the Ready condition is stamped afresh on every pass", "skip-when-equal",
		[]edit{{statusGo, "meta.SetStatusCondition(&status.Conditions, ready)", "meta.RemoveStatusCondition(&status.Conditions, ready.Type); meta.SetStatusCondition(&status.Conditions, ready)"}}},
	{"a changed spec.message never reaches the ConfigMap", "update",
		[]edit{{configMapGo, "return merged, dataChanged || labelsChanged", "return merged, dataChanged && labelsChanged && false"}}},
	{"the article's first stage watches ConfigMaps too", "unwatched-drift",
		[]edit{{controllerGo, "if opts.Wiring == WatchSamplesAndConfigMaps {", "if true {"}}},
	{"no watch on owned ConfigMaps", "owned-drift",
		[]edit{{controllerGo, "if opts.Wiring == WatchSamplesAndConfigMaps {", "if false {"}}},
	{"the whole data map is replaced, dropping others' keys", "owned-drift",
		[]edit{{configMapGo, "dataChanged := overlay(&merged.Data, desired.Data)", "dataChanged := merged.Data[demov1alpha1.MessageKey] != desired.Data[demov1alpha1.MessageKey]; merged.Data = desired.Data"}}},
	{"no owner reference on the ConfigMap", "gc",
		[]edit{{configMapGo, `OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(sample, demov1alpha1.GroupVersion.WithKind("Sample"))},`, ""}}},
	{"status carries the time of the pass, and status changes start a reconcile", "status-loop",
		[]edit{
			{statusGo, `"fmt"`, `"fmt"; "time"`},
			{statusGo, `ready.Message = fmt.Sprintf("ConfigMap %s holds spec.message", status.ConfigMapName)`, `ready.Message = fmt.Sprintf("ConfigMap %s holds spec.message at %d", status.ConfigMapName, time.Now().UnixNano())`},
			{controllerGo, "builder.WithPredicates(predicate.GenerationChangedPredicate{})", "builder.WithPredicates(predicate.Funcs{})"},
		}},
	{"a ConfigMap the Sample does not control is written anyway", "conflict",
		[]edit{{controllerGo, "if !metav1.IsControlledBy(current, sample) {", "if !metav1.IsControlledBy(current, sample) && false {"}}},
}

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

	results := make([]result, len(mutants))
	err = harness.Parallel(len(mutants), workers, func(i int) error {
		m := mutants[i]
		overlay, err := writeOverlay(root, filepath.Join(work, fmt.Sprint(i)), m.edits)
		if err != nil {
			return fmt.Errorf("mutant %q: %w", m.name, err)
		}
		start := time.Now()
		if results[i].scenario, err = run(root, "go", "test", "-overlay="+overlay, "-count=1", "-timeout=5m", "./scenarios/",
			"-ginkgo.no-color", "-ginkgo.label-filter="+m.scenario); err != nil {
			return fmt.Errorf("mutant %q, scenario %s: %w", m.name, m.scenario, err)
		}
		results[i].took = time.Since(start)
		if results[i].unit, err = run(root, "go", "test", "-overlay="+overlay, "-count=1", "./controllers/"); err != nil {
			return fmt.Errorf("mutant %q, unit tests: %w", m.name, err)
		}
		fmt.Fprintf(os.Stderr, "mutant %d/%d: %s: %s\n", i+1, len(mutants), m.name, results[i].scenario)
		return nil
	})
	if err != nil {
		fail(err)
	}

	var survivors []string
	fmt.Println("| Mutant | Scenario | Scenario run | Unit tests |")
	fmt.Println("|---|---|---|---|")
	for i, m := range mutants {
		r := results[i]
		fmt.Printf("| %s | %s | %s (%.0f s) | %s |\n", m.name, m.scenario, r.scenario, r.took.Seconds(), r.unit)
		if !r.scenario.killed {
			survivors = append(survivors, fmt.Sprintf("%q survived %s", m.name, m.scenario))
		}
	}
	if len(survivors) > 0 {
		fail(fmt.Errorf("a scenario passed against the break it exists to catch: %s", strings.Join(survivors, "; ")))
	}
	fmt.Printf("\nEvery scenario failed against the break it exists to catch (%d mutants).\n", len(mutants))
}

// writeOverlay writes the mutated copies of the files that edits touch into dir, and the overlay
// file that `go test -overlay` reads, and returns the overlay file's path.
func writeOverlay(root, dir string, edits []edit) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	mutated := map[string]string{}
	for _, e := range edits {
		content, ok := mutated[e.file]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, e.file))
			if err != nil {
				return "", err
			}
			content = string(b)
		}
		if n := strings.Count(content, e.from); n != 1 {
			return "", fmt.Errorf("%s holds %q %d times, not once: update the mutant to follow the code", e.file, e.from, n)
		}
		mutated[e.file] = strings.Replace(content, e.from, e.to, 1)
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
