// Command catalogue writes scenarios/README.md, the scenario catalogue, from the code itself: each
// scenario file's doc comment (behaviour, lesson, source, how to try it by hand) and its Ginkgo
// tree (Context and It texts, By steps, table entries, labels); the breaks in the mutants; the
// reasons of Ready=False in the API; around them, the fixed prose of catalogue.md.tmpl. What the
// catalogue says of each scenario is therefore what the specs check. `make catalogue` runs it;
// `make verify` fails when the committed catalogue differs from what it writes.
//
//	catalogue SCENARIO_DIR DRY_RUN OUTPUT  write the catalogue of the scenarios in SCENARIO_DIR, whose
//	                                       Ginkgo dry run's JSON report is DRY_RUN
//	catalogue new LABEL                    write the skeleton of a new scenario (make scenario NAME=LABEL)
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "new":
		err = newScenario("scenarios", os.Args[2])
	case len(os.Args) == 4:
		err = write(os.Args[1], os.Args[2], os.Args[3])
	default:
		fmt.Fprintln(os.Stderr, "usage: catalogue SCENARIO_DIR DRY_RUN OUTPUT | catalogue new LABEL")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogue:", err)
		os.Exit(1)
	}
}

// write renders the catalogue of the scenarios in dir, whose dry run's report is dryRun, into
// output. The repository's root is dir's parent: the API is read from there.
func write(dir, dryRun, output string) error {
	c, err := build(dir, dryRun)
	if err != nil {
		return err
	}
	content, err := c.render()
	if err != nil {
		return err
	}
	return writeIfChanged(output, content)
}

// build reads everything the catalogue says, and fails on anything it cannot say truthfully.
func build(dir, dryRun string) (*catalogue, error) {
	root := filepath.Dir(filepath.Clean(dir))
	r := &reader{}
	c := &catalogue{}
	var err error
	if c.Scenarios, err = r.scenarios(dir, dryRun); err != nil {
		return nil, err
	}
	if c.Reasons, err = reasons(filepath.Join(root, "api")); err != nil {
		return nil, err
	}
	if len(r.problems) > 0 {
		return nil, errors.New(strings.Join(r.problems, "; "))
	}
	return c, nil
}

// writeIfChanged leaves a file whose content is already right untouched: go test keys the files a
// test opens on their modification time, and a rewrite of the same bytes would rerun them.
func writeIfChanged(path string, content []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
		return nil
	}
	return os.WriteFile(path, content, 0o644)
}
