package main

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"
)

// label is what a scenario's label may be: it names the scenario's file too.
var label = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// newScenario writes the skeleton of the scenario labelled name into dir, in the house form, and
// adds its label to the reading order. Its one spec fails until it is written.
func newScenario(dir, name string) error {
	if !label.MatchString(name) {
		return fmt.Errorf("%q is not a label: lower case words joined by dashes, e.g. paused", name)
	}
	path := filepath.Join(dir, fileOf([]string{name}))
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists already", path)
	}
	order := filepath.Join(dir, readingOrderFile)
	labels, err := readingOrder(order)
	if err != nil {
		return err
	}
	if slices.Contains(labels, name) {
		return fmt.Errorf("%s lists %s already", order, name)
	}
	var b strings.Builder
	if err := skeleton.Execute(&b, map[string]string{"Label": name, "Title": capitalise(strings.ReplaceAll(name, "-", " "))}); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	f, err := os.OpenFile(order, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, name)
	if err := errors.Join(err, f.Close()); err != nil {
		return err
	}
	fmt.Printf(`wrote %s, and added %s to %s (move it where a newcomer should read it).
Next:
  1. Fill in the doc comment and the spec: the steps (By) and what they expect.
     A name the API does not have yet (a field, a reason) goes into api/ first, so that the
     scenario compiles and fails for the reason you expect.
  2. go test ./scenarios/ -ginkgo.label-filter=%s     watch it fail
  3. Make it pass in controllers/; add the break it catches to testing/workshop/mutate/mutants;
     make mutate SCENARIO=%s
`, path, name, order, name, name)
	return nil
}

// skeleton is a new scenario in the house form: every field of the doc comment the catalogue
// reads, and a Describe › Context › It that fails until it is written.
//
//go:embed scenario.go.tmpl
var skeletonText string

var skeleton = template.Must(template.New("scenario").Parse(skeletonText))
