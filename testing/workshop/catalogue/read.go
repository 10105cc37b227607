package main

import (
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
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

// scenarios reads dir's scenarios, in the reading order, from a Ginkgo dry run's report and source.
func (r *reader) scenarios(dir, report string) ([]*scenario, error) {
	order, err := readingOrder(filepath.Join(dir, readingOrderFile))
	files, globErr := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err = errors.Join(err, globErr); err != nil {
		return nil, err
	}
	parsed, all := map[string]*scenarioFile{}, []*scenario{}
	for _, path := range files {
		if parsed[filepath.Base(path)], err = parseFile(path); err != nil {
			return nil, err
		}
		all = append(all, parsed[filepath.Base(path)].scenarios...)
	}
	reports, err := specreport.Reports(report)
	if err != nil {
		return nil, fmt.Errorf("the scenarios' dry run: %w (make catalogue writes it)", err)
	}
	for _, report := range reports {
		r.place(report.SpecReports.WithLeafNodeType(types.NodeTypeIt), parsed)
	}
	for _, s := range all {
		if len(s.Specs) == 0 {
			r.problem("%s: scenario %q has no specs in the dry run (%s)", s.File, s.Title, report)
		}
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
	slices.SortStableFunc(all, func(a, b *scenario) int {
		return slices.Index(order, firstLabel(a)) - slices.Index(order, firstLabel(b))
	})
	return all, nil
}

// firstLabel is a scenario's first label, which names it: "" if it has none.
func firstLabel(s *scenario) string { return cmp.Or(s.labels...) } // Ginkgo refuses an empty label

// place puts each spec of the dry run under its scenario; a table's entries read "table: entry".
func (r *reader) place(specs []types.SpecReport, files map[string]*scenarioFile) {
	for _, s := range specs {
		file := filepath.Base(s.LeafNodeLocation.FileName)
		src, ok := files[file]
		if !ok || len(s.ContainerHierarchyLocations) == 0 {
			r.problem("%s:%d: spec %q is outside every scenario file's Describe", file, s.LeafNodeLocation.LineNumber, s.FullText())
			continue
		}
		sc, ok := src.describes[s.ContainerHierarchyLocations[0].LineNumber]
		if !ok {
			r.problem("%s:%d: spec %q is in a Describe without the scenario's doc comment", file, s.LeafNodeLocation.LineNumber, s.FullText())
			continue
		}
		sc.labels = s.ContainerHierarchyLabels[0]
		source := src.Specs[s.LeafNodeLocation.LineNumber]
		sp := spec{Path: slices.Clone(s.ContainerHierarchyTexts[1:]), Text: s.LeafNodeText, Line: s.LeafNodeLocation.LineNumber,
			Steps: source.Steps(), labels: s.Labels()}
		if slices.Contains(sp.Steps, "") {
			r.problem("%s:%d: spec %q has a By(...) whose text is not a string literal", file, sp.Line, s.FullText())
		}
		if last := len(sp.Path) - 1; last >= 0 && source.Table != nil {
			sp.Text, sp.Path = sp.Path[last]+": "+sp.Text, sp.Path[:last]
		}
		sc.Specs = append(sc.Specs, sp)
	}
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

// scenarioFile is a file's specs, its scenarios, and these by their Describe's line.
type scenarioFile struct {
	*specsource.File
	scenarios []*scenario
	describes map[int]*scenario
}

func parseFile(path string) (*scenarioFile, error) {
	f, err := specsource.Parse(path)
	if err != nil {
		return nil, err
	}
	src := &scenarioFile{File: f, describes: map[int]*scenario{}}
	for _, decl := range f.Decls {
		// A scenario is `var _ = Describe(...)` under its doc comment.
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Doc == nil || gen.Tok != token.VAR || len(gen.Specs) != 1 {
			continue
		}
		var call *ast.CallExpr
		if vs, _ := gen.Specs[0].(*ast.ValueSpec); len(vs.Values) == 1 {
			call, _ = vs.Values[0].(*ast.CallExpr)
		}
		if call == nil || specsource.Name(call) != "Describe" {
			continue
		}
		s, err := parseDoc(gen.Doc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		s.File, s.Line = filepath.Base(path), f.Line(gen)
		src.scenarios = append(src.scenarios, &s)
		src.describes[f.Line(call)] = &s
	}
	return src, nil
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
