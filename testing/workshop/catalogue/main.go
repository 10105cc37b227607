// Command catalogue writes scenarios/README.md from the scenarios and the mutants, in
// catalogue.md.tmpl's prose: what it says is what the specs check.
package main

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"text/template"

	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/workshop/mutate/mutants"
)

func main() {
	if len(os.Args) < 4 || len(os.Args)%2 != 0 {
		fmt.Fprintln(os.Stderr, "usage: catalogue OUTPUT SCENARIO_DIR DRY_RUN [SCENARIO_DIR DRY_RUN]...")
		os.Exit(2)
	}
	var suites []suite
	for i := 2; i < len(os.Args); i += 2 {
		suites = append(suites, suite{Dir: os.Args[i], DryRun: os.Args[i+1]})
	}
	if err := write(os.Args[1], suites); err != nil {
		fmt.Fprintln(os.Stderr, "catalogue:", err)
		os.Exit(1)
	}
}

// write renders the catalogue of the suites' scenarios into output; the first suite's directory
// holds the reading order, and the others are below it.
func write(output string, suites []suite) error {
	r := &reader{}
	scenarios, err := r.scenarios(suites...)
	if err != nil {
		return err
	}
	if len(r.problems) > 0 {
		return errors.New(strings.Join(r.problems, "; "))
	}
	content, err := (&catalogue{Scenarios: scenarios}).render()
	if err != nil {
		return err
	}
	return os.WriteFile(output, content, 0o644)
}

// catalogue is everything the catalogue says, as read from the code.
type catalogue struct{ Scenarios []*scenario }

//go:embed catalogue.md.tmpl
var layout string

var page = template.Must(template.New("catalogue").Funcs(template.FuncMap{
	"link": func(s *scenario) string {
		return fmt.Sprintf("[%s](#%s)", s.Title, strings.ReplaceAll(strings.ToLower(s.Title), " ", "-"))
	},
	"join":  func(items []string) string { return strings.Join(items, ", ") },
	"tiers": func() []tiers.Tier { return tiers.All },
	"since": func() []string {
		since := make([]string, 0, len(tiers.SinceMinor))
		for _, label := range slices.Sorted(maps.Keys(tiers.SinceMinor)) {
			since = append(since, fmt.Sprintf("`%s` before %d.%d", label, tiers.SinceMinor[label].Major(), tiers.SinceMinor[label].Minor()))
		}
		return since
	},
	"mutants": func() []mutants.Mutant { return mutants.All },
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
	for _, t := range tiers.All {
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
