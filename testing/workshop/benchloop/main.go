// Command benchloop (make bench-loop) measures the test-first loop, from a saved edit of the
// controller to one scenario's red/green line, cold and warm, and the unit tier after the same edit.
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

	"example.com/operator-demo/testing/harness/warm"
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

const runs = 3 // of each kind; the table gives their medians

// split is where the time from a saved edit to the red/green line goes: split[compile] and so on.
type split [4]time.Duration

const compile, controlPlane, specs, total = 0, 1, 2, 3

// loop measures the loop to label's line cold, warm (make envtest-up's control plane), then the unit tier.
func loop(label string) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	work := filepath.Join(root, "bin", "bench-loop") // overlay.Write makes it
	// make envtest-up's control plane is left as it was found: up and answering, or not.
	_, _, notUp := warm.Read(filepath.Join(root, warm.File))
	var medians []split // cold, warm, the unit tier
	for _, kind := range []string{"envtest-down", "envtest-up", "unit"} {
		if strings.HasPrefix(kind, "envtest") {
			if err := command(root, "make", "-s", "-C", root, kind); err != nil {
				return err
			}
		}
		var times [len(split{})][]time.Duration // by column, then run
		for i := range runs {
			s, err := loopOnce(root, work, label, kind, fmt.Sprintf("%s %d %d", kind, i, time.Now().UnixNano()))
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "bench-loop: %s, run %d: compile %s, control plane %s, specs %s, total %s\n", kind, i+1, s[compile], s[controlPlane], s[specs], s[total])
			for k := range s {
				times[k] = append(times[k], s[k])
			}
		}
		var median split
		for k, ts := range times {
			slices.Sort(ts)
			median[k] = ts[runs/2]
		}
		medians = append(medians, median)
	}
	if notUp != nil {
		_ = exec.Command("make", "-s", "-C", root, "envtest-down").Run()
	}
	// The floor: the least compile and spec times seen (a cold run's first spec waits for a fresh API server).
	c, w := medians[0], medians[1]
	floor := split{compile: min(c[compile], w[compile]), specs: min(c[specs], w[specs])}
	floor[total] = floor[compile] + floor[specs]
	fmt.Printf("\n| From a saved edit of `controllers/` to the red/green line of `%s` (median of %d) | Compile | Control plane | Specs | Total |\n|---|---|---|---|---|\n", label, runs)
	for i, name := range []string{"cold: the suite starts its own control plane", "warm: `make envtest-up`'s control plane", "floor: the incremental compile and the spec's own run"} {
		s := []split{c, w, floor}[i]
		fmt.Printf("| %s | %.1f s | %.1f s | %.1f s | **%.1f s** |\n", name, s[compile].Seconds(), s[controlPlane].Seconds(), s[specs].Seconds(), s[total].Seconds())
	}
	fmt.Printf("| unit tier, `go test ./controllers/` after the same edit | | | | **%.1f s** |\n", medians[2][total].Seconds())
	return nil
}

// loopOnce adds a comment to the controller by -overlay and times the unit tier, or the scenarios' build and label's run.
func loopOnce(root, work, label, kind, edit string) (split, error) {
	var s split
	file := filepath.Join(root, "controllers", "sample_controller.go")
	content, err := os.ReadFile(file)
	edited := ""
	if err == nil {
		edited, err = overlay.Write(work, map[string]string{file: string(content) + "\n// bench-loop: " + edit + "\n"})
	}
	if err != nil {
		return s, err
	}
	started := time.Now()
	if kind == "unit" {
		err = command(root, "go", "test", "-overlay", edited, "./controllers/")
		s[total] = time.Since(started)
		return s, err
	}
	binary := filepath.Join(work, "scenarios.test")
	if err := command(root, "go", "test", "-c", "-overlay", edited, "-o", binary, "./scenarios"); err != nil {
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

// command runs name with args in dir; its output goes into the error if it fails.
func command(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
