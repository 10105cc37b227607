package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"example.com/operator-demo/testing/workshop/mutate/mutants"
	"example.com/operator-demo/testing/workshop/specreport"
	"example.com/operator-demo/testing/workshop/specsource"
)

// scenario is a scenario: its doc comment (Doc), whose first line is "Title: Behaviour".
type scenario struct {
	File, Title, Behaviour, Doc string
	Line                        int
	labels                      []string
	Specs                       []spec
}

// spec is an It (or table Entry): its Context texts (outermost first), By steps, all its labels.
type spec struct {
	Path, Steps, labels []string
	Text                string
	Line                int
}

// readingOrderFile lists the scenarios' labels in the order a newcomer reads them.
const readingOrderFile = "reading-order.txt"

// reader keeps the problems that stop the catalogue: what it cannot render truthfully.
type reader struct{ problems []string }

func (r *reader) problem(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// suite is a directory of scenarios and the report of its test binary's Ginkgo dry run.
type suite struct{ Dir, DryRun string }

// scenarios reads the suites' scenarios, from each one's dry run and source, in the reading order
// of the first suite's directory, which the others are below.
func (r *reader) scenarios(suites ...suite) ([]*scenario, error) {
	order, err := readingOrder(filepath.Join(suites[0].Dir, readingOrderFile))
	if err != nil {
		return nil, err
	}
	var all []*scenario
	for _, s := range suites {
		reports, err := specreport.Reports(s.DryRun)
		if err != nil {
			return nil, fmt.Errorf("the dry run of %s: %w (make catalogue writes it)", s.Dir, err)
		}
		below, err := filepath.Rel(suites[0].Dir, s.Dir)
		if err != nil {
			return nil, err
		}
		for _, report := range reports {
			if all, err = r.place(s.Dir, below, report.SpecReports.WithLeafNodeType(types.NodeTypeIt), all); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range all {
		if !slices.Contains(order, firstLabel(s)) {
			r.problem("%s: scenario %q: its first label %v is not in %s", s.File, s.Title, s.labels, readingOrderFile)
		}
		slices.SortFunc(s.Specs, func(a, b spec) int { return a.Line - b.Line })
	}
	for _, m := range mutants.All {
		if !slices.ContainsFunc(all, func(s *scenario) bool { return slices.Contains(s.labels, m.Scenario) }) {
			r.problem("mutant %q names scenario %q, which no scenario is labelled", m.Break, m.Scenario)
		}
	}
	// A scenario out of the reading order is a problem, so where it sorts does not matter.
	slices.SortFunc(all, func(a, b *scenario) int {
		return cmp.Or(slices.Index(order, firstLabel(a))-slices.Index(order, firstLabel(b)), strings.Compare(a.File, b.File), a.Line-b.Line)
	})
	return all, nil
}

// firstLabel is a scenario's first label, which names it: "" if it has none.
func firstLabel(s *scenario) string { return cmp.Or(s.labels...) } // Ginkgo refuses an empty label

// place puts each spec of the dry run, read in dir, under its scenario: the Describe around it,
// with the doc comment just above it, added to all when first met, its file named by its path
// below the first suite's directory. A table's entries read "table: entry".
func (r *reader) place(dir, below string, specs []types.SpecReport, all []*scenario) ([]*scenario, error) {
	for _, s := range specs {
		name, line := filepath.Base(s.LeafNodeLocation.FileName), s.LeafNodeLocation.LineNumber
		file := filepath.ToSlash(filepath.Join(below, name))
		if s.State.Is(types.SpecStatePending) {
			r.problem("%s:%d: spec %q is pending: %s", file, line, s.FullText(), specreport.PendingGap)
			continue
		}
		if len(s.ContainerHierarchyLocations) == 0 {
			r.problem("%s:%d: spec %q is outside every Describe", file, line, s.FullText())
			continue
		}
		src, err := specsource.Parse(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		describe := s.ContainerHierarchyLocations[0].LineNumber
		i := slices.IndexFunc(all, func(sc *scenario) bool { return sc.File == file && sc.Line == describe })
		if i < 0 {
			doc := src.Comment(describe)
			if doc == "" {
				r.problem("%s:%d: spec %q is in a Describe without the scenario's doc comment", file, line, s.FullText())
				continue
			}
			sc, err := parseDoc(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			sc.File, sc.Line, sc.labels = file, describe, s.ContainerHierarchyLabels[0]
			i, all = len(all), append(all, &sc)
		}
		source, found := src.Specs[line]
		if !found {
			r.problem("%s:%d: spec %q: no It or Entry there", file, line, s.FullText())
			continue
		}
		sp := spec{Path: slices.Clone(s.ContainerHierarchyTexts[1:]), Text: s.LeafNodeText, Line: line,
			Steps: source.Steps(), labels: s.Labels()}
		if slices.Contains(sp.Steps, "") {
			r.problem("%s:%d: spec %q has a By(...) whose text is not a string literal", file, sp.Line, s.FullText())
		}
		if last := len(sp.Path) - 1; last >= 0 && source.Table != nil {
			sp.Text, sp.Path = sp.Path[last]+": "+sp.Text, sp.Path[:last]
		}
		all[i].Specs = append(all[i].Specs, sp)
	}
	return all, nil
}

// readingOrder reads the labels of the file at path: one a line, # starts a comment.
func readingOrder(path string) ([]string, error) {
	b, err := os.ReadFile(path) // on an error, no lines and the error
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, err
}

// parseDoc reads a scenario's doc comment: "Title: behaviour", then paragraphs Lesson:, Source: and By hand:.
func parseDoc(doc string) (scenario, error) {
	first, _, _ := strings.Cut(doc, "\n\n")
	title, behaviour, ok := strings.Cut(strings.Join(strings.Fields(first), " "), ": ")
	if !ok {
		return scenario{}, fmt.Errorf("first line %q is not \"Title: behaviour\"", first)
	}
	for _, para := range []string{"Lesson:", "Source:", "By hand"} {
		if !strings.Contains(doc, "\n\n"+para) {
			return scenario{}, fmt.Errorf("scenario %q lacks a %s paragraph", title, para)
		}
	}
	return scenario{Title: title, Behaviour: behaviour, Doc: strings.TrimSpace(doc)}, nil
}
