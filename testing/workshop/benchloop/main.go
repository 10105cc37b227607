// Command benchloop measures the test-first loop, from a saved edit of the controller to one
// scenario's red/green line: cold (the suite starts its own control plane), warm (make
// envtest-up's), and the unit tier after the same edit. `make bench-loop` runs it.
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
	"example.com/operator-demo/testing/workshop/overlay"
	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
)

func main() {
	label := flag.String("label", "create", "the scenario (its label) whose red/green line the loop ends at")
	flag.Parse()
	if err := loop(*label); err != nil {
		fmt.Fprintln(os.Stderr, "bench-loop:", err)
		os.Exit(1)
	}
}

// runs of each kind; the table gives their medians.
const runs = 3

// split is where the time from a saved edit to the red/green line goes.
type split [4]time.Duration

const compile, controlPlane, specs, total = 0, 1, 2, 3

// loop measures the loop for the scenario labelled label: an edit of the controller (a comment,
// built in with -overlay, so the tree is never touched), the scenarios compiled again and the one
// scenario run, cold and warm; then go test ./controllers/ after the same edit.
func loop(label string) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	work := filepath.Join(root, "bin", "bench-loop")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	// make envtest-up's control plane is left as it was found: up and answering, or not.
	_, _, notUp := warm.Read(filepath.Join(root, warm.File))
	var medians, unit []split // cold then warm; the unit tier's totals
	for _, mode := range []string{"envtest-down", "envtest-up"} {
		if err := command(root, "make", "-s", "-C", root, mode); err != nil {
			return err
		}
		var splits []split
		for i := range runs {
			s, err := loopOnce(root, work, label, fmt.Sprintf("%s %d %d", mode, i, time.Now().UnixNano()))
			if err != nil {
				return err
			}
			splits = append(splits, s)
			fmt.Fprintf(os.Stderr, "bench-loop: %s, run %d: compile %s, control plane %s, specs %s, total %s\n", mode, i+1, s[compile], s[controlPlane], s[specs], s[total])
		}
		var m split
		for k := range m {
			m[k] = median(splits, k)
		}
		medians = append(medians, m)
	}
	for i := range runs {
		overlay, err := editedController(root, work, fmt.Sprintf("unit %d %d", i, time.Now().UnixNano()))
		if err != nil {
			return err
		}
		started := time.Now()
		if err := command(root, "go", "test", "-overlay", overlay, "./controllers/"); err != nil {
			return err
		}
		unit = append(unit, split{total: time.Since(started)})
	}
	if notUp != nil {
		_ = exec.Command("make", "-s", "-C", root, "envtest-down").Run()
	}
	// The floor: the least compile and the least spec time seen, with no control plane at all. A
	// cold run's first spec also waits for a fresh API server (discovery, the CRD's first watch).
	c, w := medians[0], medians[1]
	floor := split{compile: min(c[compile], w[compile]), specs: min(c[specs], w[specs])}
	floor[total] = floor[compile] + floor[specs]
	fmt.Printf("\n| From a saved edit of `controllers/` to the red/green line of `%s` (median of %d) | Compile | Control plane | Specs | Total |\n|---|---|---|---|---|\n", label, runs)
	for i, name := range []string{"cold: the suite starts its own control plane", "warm: `make envtest-up`'s control plane", "floor: the incremental compile and the spec's own run"} {
		s := []split{c, w, floor}[i]
		fmt.Printf("| %s | %.1f s | %.1f s | %.1f s | **%.1f s** |\n", name, s[compile].Seconds(), s[controlPlane].Seconds(), s[specs].Seconds(), s[total].Seconds())
	}
	fmt.Printf("| unit tier, `go test ./controllers/` after the same edit | | | | **%.1f s** |\n", median(unit, total).Seconds())
	return nil
}

// loopOnce edits the controller (a comment saying edit), compiles the scenarios with it and runs
// the scenario labelled label, and says where the time went.
func loopOnce(root, work, label, edit string) (split, error) {
	var s split
	overlay, err := editedController(root, work, edit)
	if err != nil {
		return s, err
	}
	binary := filepath.Join(work, "scenarios.test")
	started := time.Now()
	if err := command(root, "go", "test", "-c", "-overlay", overlay, "-o", binary, "./scenarios"); err != nil {
		return s, err
	}
	s[compile] = time.Since(started)
	started = time.Now()
	run := exec.Command(binary, "-ginkgo.label-filter="+label)
	run.Dir = filepath.Join(root, "scenarios")
	suite, out, err, readErr := specreport.Run(run, filepath.Join(work, "report.json"), root)
	if err = errors.Join(err, readErr); err != nil {
		return s, fmt.Errorf("run the scenario %s: %w\n%s", label, err, out)
	}
	s[total], s[controlPlane] = s[compile]+time.Since(started), suite.SetupTime
	for _, spec := range suite.Specs {
		s[specs] += spec.RunTime
	}
	if s[specs] == 0 {
		return s, errors.New("no spec labelled " + label + " ran")
	}
	return s, nil
}

// editedController writes the controller with a comment added at its end, and the overlay that
// builds it in, into work; it returns the overlay's path.
func editedController(root, work, edit string) (string, error) {
	file := filepath.Join(root, "controllers", "sample_controller.go")
	content, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	return overlay.Write(work, map[string]string{file: string(content) + "\n// bench-loop: " + edit + "\n"})
}

// command runs name with args in dir; its output goes into the error if it fails.
func command(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// median is the median of the splits' k-th times.
func median(splits []split, k int) time.Duration {
	ds := make([]time.Duration, len(splits))
	for i, s := range splits {
		ds[i] = s[k]
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
