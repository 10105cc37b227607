// Command catalogue writes scenarios/README.md from the scenarios, the mutants and the API, in
// catalogue.md.tmpl's prose: what it says is what the specs check. `catalogue new LABEL`: a skeleton.
package main

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"example.com/operator-demo/testing/workshop/mutate/mutants"
	"example.com/operator-demo/testing/workshop/tierdoc"
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

// write renders the catalogue of the scenarios in dir, and the API beside it, into output.
func write(dir, dryRun, output string) error {
	r := &reader{}
	scenarios, err := r.scenarios(dir, dryRun)
	if err != nil {
		return err
	}
	c := &catalogue{Scenarios: scenarios}
	if c.Reasons, err = reasons(filepath.Join(filepath.Dir(filepath.Clean(dir)), "api")); err != nil {
		return err
	}
	if len(r.problems) > 0 {
		return errors.New(strings.Join(r.problems, "; "))
	}
	content, err := c.render()
	if err != nil {
		return err
	}
	// Left untouched if right: go test caches on the mtimes of the files a test opens.
	if old, err := os.ReadFile(output); err == nil && bytes.Equal(old, content) {
		return nil
	}
	return os.WriteFile(output, content, 0o644)
}

// catalogue is everything the catalogue says, as read from the code.
type catalogue struct {
	Scenarios []*scenario
	Reasons   []reason
}

//go:embed catalogue.md.tmpl
var layout string

var page = template.Must(template.New("catalogue").Funcs(template.FuncMap{
	"link": func(s *scenario) string {
		return fmt.Sprintf("[%s](#%s)", s.Title, strings.ReplaceAll(strings.ToLower(s.Title), " ", "-"))
	},
	"join":       func(items []string) string { return strings.Join(items, ", ") },
	"capitalise": capitalise,
	"byHand":     byHand,
	"tiers":      func() []tierdoc.Tier { return tierdoc.All },
	"sources":    func() []source { return sources },
	"mutants":    func() []mutants.Mutant { return mutants.All },
}).Parse(layout))

func (c *catalogue) render() ([]byte, error) {
	var b bytes.Buffer
	err := page.Execute(&b, c)
	return b.Bytes(), err
}

// Caught are the scenarios that have a break of their own in the mutants, or (false) the others.
func (c *catalogue) Caught(caught bool) []*scenario {
	return slices.DeleteFunc(slices.Clone(c.Scenarios), func(s *scenario) bool { return (len(s.Breaks()) > 0) != caught })
}

// Breaks are the mutants that s must fail against.
func (s scenario) Breaks() []string {
	var out []string
	for _, m := range mutants.All {
		if slices.Contains(s.labels, m.Scenario) {
			out = append(out, m.Break)
		}
	}
	return out
}

// Tiers are the tiers that run sp, cheapest first.
func (sp spec) Tiers() []string { return scenario{Specs: []spec{sp}}.Tiers() }

// Tiers are the tiers that run at least one of s's specs, cheapest first.
func (s scenario) Tiers() []string {
	var out []string
	for _, t := range tierdoc.All {
		if slices.ContainsFunc(s.Specs, func(sp spec) bool { return t.Runs(sp.labels...) }) {
			out = append(out, t.Name)
		}
	}
	return out
}

// Heading is the spec's containers and its It, as the catalogue lists it.
func (sp spec) Heading() string {
	return strings.Join(append(slices.Clone(sp.Path), "it "+sp.Text), " › ")
}

// byHand renders the "By hand" paragraph: its prose as text, its indented lines as a shell block.
func byHand(text string) string {
	var b strings.Builder
	inCode := false
	for line := range strings.SplitSeq(text, "\n") {
		line, code := strings.CutPrefix(line, "\t")
		if !code && strings.TrimSpace(line) == "" {
			continue
		}
		if code != inCode {
			b.WriteString(map[bool]string{true: "\n```sh\n", false: "```\n\n"}[code])
		}
		inCode = code
		b.WriteString(line + "\n")
	}
	if inCode {
		b.WriteString("```\n")
	}
	return b.String()
}

// label is what a scenario's label may be: it names the scenario's file too.
var label = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

//go:embed scenario.go.tmpl
var skeletonText string

// skeleton is a new scenario: every field of the doc comment, and a spec that fails until written.
var skeleton = template.Must(template.New("scenario").Parse(skeletonText))

// newScenario writes the skeleton of scenario name into dir and adds name to the reading order.
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
	var b bytes.Buffer
	if err := skeleton.Execute(&b, map[string]string{"Label": name, "Title": capitalise(strings.ReplaceAll(name, "-", " "))}); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return err
	}
	f, err := os.OpenFile(order, os.O_APPEND|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = fmt.Fprintln(f, name)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
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
