// Command benchloop measures the test-first loop for one scenario: from a saved edit of the
// controller to the scenario's red/green line, cold (the suite starts its own control plane) and
// warm (make envtest-up's), and the unit tier after the same edit; it prints a Markdown table.
// `make bench-loop` runs it; BENCHMARKS.md keeps its output.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"example.com/operator-demo/testing/warm"
	"example.com/operator-demo/testing/workshop/overlay"
	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
)

func main() {
	label := flag.String("label", "create", "the scenario (its label) whose red/green line the loop ends at")
	runs := flag.Int("runs", 3, "runs of each kind")
	flag.Parse()
	if err := loop(*label, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench-loop:", err)
		os.Exit(1)
	}
}

// loopSplit is where the time from a saved change to the red/green line of one scenario goes.
type loopSplit struct {
	compile, controlPlane, specs, total time.Duration
}

// loop measures the test-first loop for the scenario labelled label: an edit of the controller
// (a comment, built in with -overlay, so the tree is never touched), the scenarios compiled again,
// and the one scenario run; cold (the suite starts its own control plane) and warm (make
// envtest-up's), runs times each, and the unit tier of controllers/ after the same edit.
func loop(label string, runs int) error {
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
	splits := map[string][]loopSplit{} // by the make target that ran before them
	var unit []time.Duration
	for _, mode := range []string{"envtest-down", "envtest-up"} {
		if out, err := exec.Command("make", "-s", "-C", root, mode).CombinedOutput(); err != nil {
			return fmt.Errorf("make %s: %w\n%s", mode, err, out)
		}
		for i := range runs {
			s, err := loopOnce(root, work, label, fmt.Sprintf("%s %d %d", mode, i, time.Now().UnixNano()))
			if err != nil {
				return err
			}
			splits[mode] = append(splits[mode], s)
			fmt.Fprintf(os.Stderr, "bench-loop: %s, run %d: %+v\n", mode, i+1, s)
		}
	}
	for i := range runs {
		overlay, err := editedController(root, work, fmt.Sprintf("unit %d %d", i, time.Now().UnixNano()))
		if err != nil {
			return err
		}
		started := time.Now()
		cmd := exec.Command("go", "test", "-overlay", overlay, "./controllers/")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go test ./controllers/: %w\n%s", err, out)
		}
		unit = append(unit, time.Since(started))
	}
	if notUp != nil {
		_ = exec.Command("make", "-s", "-C", root, "envtest-down").Run()
	}
	c, w := medianSplit(splits["envtest-down"]), medianSplit(splits["envtest-up"])
	fmt.Printf("\n| From a saved edit of `controllers/` to the red/green line of `%s` (median of %d) | Compile | Control plane | Specs | Total |\n|---|---|---|---|---|\n", label, runs)
	row := func(name string, s loopSplit) {
		fmt.Printf("| %s | %.1f s | %.1f s | %.1f s | **%.1f s** |\n", name, s.compile.Seconds(), s.controlPlane.Seconds(), s.specs.Seconds(), s.total.Seconds())
	}
	row("cold: the suite starts its own control plane", c)
	row("warm: `make envtest-up`'s control plane", w)
	// The floor: the least compile and the least spec time seen, with no control plane at all. A
	// cold run's first spec also waits for a fresh API server (discovery, the CRD's first watch).
	floor := loopSplit{compile: min(c.compile, w.compile), specs: min(c.specs, w.specs)}
	floor.total = floor.compile + floor.specs
	row("floor: the incremental compile and the spec's own run", floor)
	fmt.Printf("| unit tier, `go test ./controllers/` after the same edit | | | | **%.1f s** |\n", median(unit).Seconds())
	return nil
}

// loopOnce edits the controller (a comment saying edit), compiles the scenarios with it and runs
// the scenario labelled label, and says where the time went.
func loopOnce(root, work, label, edit string) (loopSplit, error) {
	var s loopSplit
	overlay, err := editedController(root, work, edit)
	if err != nil {
		return s, err
	}
	binary := filepath.Join(work, "scenarios.test")
	started := time.Now()
	build := exec.Command("go", "test", "-c", "-overlay", overlay, "-o", binary, "./scenarios")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return s, fmt.Errorf("compile the scenarios: %w\n%s", err, out)
	}
	s.compile = time.Since(started)
	started = time.Now()
	run := exec.Command(binary, "-ginkgo.label-filter="+label)
	run.Dir = filepath.Join(root, "scenarios")
	suite, out, err, readErr := specreport.Run(run, filepath.Join(work, "report.json"), root)
	if err = errors.Join(err, readErr); err != nil {
		return s, fmt.Errorf("run the scenario %s: %w\n%s", label, err, out)
	}
	s.total, s.controlPlane = s.compile+time.Since(started), suite.SetupTime
	for _, spec := range suite.Specs {
		s.specs += spec.RunTime
	}
	if s.specs == 0 {
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

func medianSplit(splits []loopSplit) loopSplit {
	pick := func(f func(loopSplit) time.Duration) time.Duration {
		ds := make([]time.Duration, len(splits))
		for i, s := range splits {
			ds[i] = f(s)
		}
		return median(ds)
	}
	return loopSplit{
		compile:      pick(func(s loopSplit) time.Duration { return s.compile }),
		controlPlane: pick(func(s loopSplit) time.Duration { return s.controlPlane }),
		specs:        pick(func(s loopSplit) time.Duration { return s.specs }),
		total:        pick(func(s loopSplit) time.Duration { return s.total }),
	}
}

func median(ds []time.Duration) time.Duration {
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}
