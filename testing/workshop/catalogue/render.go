package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"example.com/operator-demo/testing/tiers"
	"example.com/operator-demo/testing/workshop/mutate/mutants"
)

// catalogue is everything the catalogue says, as read from the code.
type catalogue struct {
	Scenarios []scenario
	Reasons   []reason
}

// layout is the catalogue's page: its fixed prose, the controller's watches among it, and where
// what is read from the code goes.
//
//go:embed catalogue.md.tmpl
var layout string

var page = template.Must(template.New("catalogue").Funcs(template.FuncMap{
	"link": func(s scenario) string {
		return fmt.Sprintf("[%s](#%s)", s.Title, strings.ReplaceAll(strings.ToLower(s.Title), " ", "-"))
	},
	"join":       func(items []string) string { return strings.Join(items, ", ") },
	"capitalise": capitalise,
	"byHand":     byHand,
}).Parse(layout))

func (c *catalogue) render() ([]byte, error) {
	var b bytes.Buffer
	err := page.Execute(&b, c)
	return b.Bytes(), err
}

// Tiers are the tiers, cheapest first.
func (c *catalogue) Tiers() []tiers.Tier { return tiers.All }

// Sources are the documents the scenarios come from, in the catalogue's order.
func (c *catalogue) Sources() []source { return sources }

// Mutants is how many breaks make mutate builds.
func (c *catalogue) Mutants() int { return len(mutants.All) }

// Caught are the scenarios that have a break of their own in the mutants (caught true), or the
// others.
func (c *catalogue) Caught(caught bool) []scenario {
	return slices.DeleteFunc(slices.Clone(c.Scenarios), func(s scenario) bool { return (len(s.Breaks()) > 0) != caught })
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

// TiersOf are the tiers that run sp, one of s's specs.
func (s scenario) TiersOf(sp spec) []string {
	var out []string
	for _, t := range tiers.All {
		if t.Runs(slices.Concat(s.labels, sp.labels)...) {
			out = append(out, t.Name)
		}
	}
	return out
}

// Tiers are the tiers that run at least one of s's specs, cheapest first.
func (s scenario) Tiers() []string {
	var out []string
	for _, t := range tiers.All {
		if slices.ContainsFunc(s.Specs, func(sp spec) bool { return slices.Contains(s.TiersOf(sp), t.Name) }) {
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
		if code && !inCode {
			b.WriteString("\n```sh\n")
		} else if !code && inCode {
			b.WriteString("```\n\n")
		}
		inCode = code
		b.WriteString(line + "\n")
	}
	if inCode {
		b.WriteString("```\n")
	}
	return b.String()
}
