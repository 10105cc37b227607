package main

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"

	"example.com/operator-demo/testing/workshop/mutate/mutants"
	"example.com/operator-demo/testing/workshop/overlay"
	"example.com/operator-demo/testing/workshop/specreport"
)

// writeOverlay writes m's mutated files, and the overlay that builds them in, into dir, and
// returns the overlay file's path.
func writeOverlay(root, dir string, m mutants.Mutant) (string, error) {
	mutated, err := m.Apply(root)
	if err != nil {
		return "", err
	}
	replace := make(map[string]string, len(mutated))
	for file, content := range mutated {
		replace[filepath.Join(root, file)] = content
	}
	return overlay.Write(dir, replace)
}

// scenarios runs the scenarios labelled by filter on envtest, with the overlay unless it is
// empty, and reads Ginkgo's JSON report (written into dir) for the first spec that failed. Only
// a failed spec counts: a run that fails in a suite node (a control plane that cannot start, say)
// or does not build is an error, since it proves nothing about the scenarios.
func scenarios(root, overlay, filter, dir string) (verdict, error) {
	report := filepath.Join(dir, "scenarios.json")
	out, err := goTest(root, overlay, "-timeout=5m", "./scenarios/", "-ginkgo.no-color", "-ginkgo.label-filter="+filter, "-ginkgo.json-report="+report)
	if err == nil {
		return verdict{}, nil
	}
	suite, readErr := specreport.Ginkgo(report, root)
	if readErr != nil {
		return verdict{}, fmt.Errorf("%w, and no Ginkgo report (%w):\n%s", err, readErr, out)
	}
	if suite.Setup != nil {
		return verdict{}, fmt.Errorf("%s failed, not a spec: %s", suite.Setup.Name, suite.Setup.Where())
	}
	for _, spec := range suite.Specs {
		if spec.Failed() {
			if !spec.InSpec {
				return verdict{}, fmt.Errorf("%q failed outside its body: %s", spec.Name, spec.Where())
			}
			return verdict{failed: true, spec: spec.Name, where: spec.Where()}, nil
		}
	}
	return verdict{}, fmt.Errorf("%w, with no failed spec in the report:\n%s", err, out)
}

// unitTests runs the unit tests of packages (go test's arguments), with the overlay unless it is
// empty, and reads `go test -json`'s events for the first test that failed.
func unitTests(root, overlay string, packages ...string) (verdict, error) {
	out, err := goTest(root, overlay, append([]string{"-json"}, packages...)...)
	if err == nil {
		return verdict{}, nil
	}
	results, buildErrors, readErr := specreport.GoTest(out)
	if readErr != nil {
		return verdict{}, errors.Join(err, readErr)
	}
	for _, why := range buildErrors {
		return verdict{}, fmt.Errorf("the unit tests do not build: %s", why)
	}
	for _, r := range results {
		if r.Failed() {
			return verdict{failed: true, spec: r.Name, where: r.Where()}, nil
		}
	}
	return verdict{}, fmt.Errorf("%w, with no failed test:\n%s", err, out)
}

// goTest runs go test -count=1 with args in root, with the overlay unless it is empty, and
// returns its combined output.
func goTest(root, overlay string, args ...string) ([]byte, error) {
	flags := []string{"test", "-count=1"}
	if overlay != "" {
		flags = append(flags, "-overlay="+overlay)
	}
	cmd := exec.Command("go", append(flags, args...)...)
	cmd.Dir = root
	return cmd.CombinedOutput()
}
