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
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/onsi/ginkgo/v2/types"

	"example.com/operator-demo/testing/workshop/mutate/mutants"
	"example.com/operator-demo/testing/workshop/specreport"
	"example.com/operator-demo/testing/workshop/specsource"
)

// scenario is a scenario: its doc comment (Title: Behaviour, Lesson, Source, Where, By hand).
type scenario struct {
	File, Title, Behaviour, Lesson, Where, ByHand string
	Line                                          int
	Source                                        source
	labels                                        []string
	Specs                                         []spec
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
		slices.SortFunc(s.Specs, func(a, b spec) int { return a.Line - b.Line })
	}
	// A scenario out of the reading order is a problem (check), so where it sorts does not matter.
	r.check(all, order)
	slices.SortStableFunc(all, func(a, b *scenario) int {
		return slices.Index(order, firstLabel(a)) - slices.Index(order, firstLabel(b))
	})
	return all, nil
}

// firstLabel is a scenario's first label, which names it: "" if it has none.
func firstLabel(s *scenario) string { return cmp.Or(s.labels...) } // Ginkgo refuses an empty label

// check notes each scenario out of the reading order or its file, and each label of the order or a mutant that none has.
func (r *reader) check(out []*scenario, order []string) {
	for _, s := range out {
		if !slices.Contains(order, firstLabel(s)) {
			r.problem("%s: scenario %q: its first label %v is not in %s", s.File, s.Title, s.labels, readingOrderFile)
		}
		if want := fileOf(s.labels); s.File != want {
			r.problem("%s: scenario %q is labelled %v: its file should be %s, named for its first label", s.File, s.Title, s.labels, want)
		}
	}
	for _, label := range order {
		if !slices.ContainsFunc(out, func(s *scenario) bool { return firstLabel(s) == label }) {
			r.problem("%s lists %q, which no scenario is labelled first", readingOrderFile, label)
		}
	}
	for _, m := range mutants.All {
		if !slices.ContainsFunc(out, func(s *scenario) bool { return slices.Contains(s.labels, m.Scenario) }) {
			r.problem("mutant %q names scenario %q, which no scenario is labelled", m.Break, m.Scenario)
		}
	}
}

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

// fileOf is the file of a scenario with these labels: skip_when_equal_test.go for skip-when-equal.
func fileOf(labels []string) string {
	if len(labels) == 0 {
		return "(a file named for its first label; it has none)"
	}
	return strings.ReplaceAll(labels[0], "-", "_") + "_test.go"
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

// parseDoc reads a scenario's doc comment: paragraphs "Title: behaviour", Lesson:, Source:, By hand: (the rest).
func parseDoc(doc string) (scenario, error) {
	var s scenario
	title, rest, ok := strings.Cut(doc, "\n\n")
	if !ok {
		return s, errors.New("doc comment has one paragraph; want paragraphs Title: behaviour, Lesson, Source, By hand")
	}
	s.Title, s.Behaviour, ok = strings.Cut(oneLine(title), ": ")
	if !ok {
		return s, fmt.Errorf("first line %q is not \"Title: behaviour\"", title)
	}
	for para := range strings.SplitSeq(rest, "\n\n") {
		para = strings.TrimSpace(para)
		if lesson, ok := strings.CutPrefix(para, "Lesson: "); ok {
			s.Lesson = capitalise(oneLine(lesson))
		} else if text, ok := strings.CutPrefix(para, "Source: "); ok {
			var err error
			if s.Source, s.Where, err = parseSource(oneLine(text)); err != nil {
				return s, fmt.Errorf("scenario %q: %w", s.Title, err)
			}
		} else if strings.HasPrefix(para, "By hand") {
			s.ByHand = strings.TrimSpace(rest[strings.Index(rest, "By hand"):])
		}
	}
	if s.Lesson == "" || s.Source.name == "" || s.ByHand == "" {
		return s, fmt.Errorf("scenario %q lacks a Lesson:, Source: or By hand: paragraph", s.Title)
	}
	return s, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func capitalise(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// source is a document the scenarios come from; a Source: paragraph begins with its name.
type source struct{ name, Short, About string }

const article, notes = "the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in Japanese)", "the Kubernetes Operator lecture notes"

// sources are the documents a scenario may name, in the order the catalogue lists them.
var sources = []source{
	{article, "Article", article + ": resources, controllers, the API server and the reconcile loop, then a kubebuilder walkthrough (§10) of this very operator on a kind cluster; `make demo` follows that walkthrough"},
	{notes, "Lecture notes", notes + ": operators in production (leader election, rate limiting, concurrency, cache scoping, metrics), the test pyramid (unit, envtest, kind), and the failures operators commonly have: status updates that loop, children leaked without owner references, errors swallowed, watches missing"},
	{"beyond both sources", "Beyond both", "what an operator that others rely on must do as well, which neither document shows"},
}

// parseSource splits a Source: paragraph into the source it names and where in that source.
func parseSource(text string) (source, string, error) {
	var names []string
	for _, src := range sources {
		if where, ok := strings.CutPrefix(text, src.name); ok {
			return src, capitalise(strings.TrimLeft(where, ",: ")), nil
		}
		names = append(names, strconv.Quote(src.name))
	}
	return source{}, "", fmt.Errorf("the Source: paragraph %q names none of the sources; it begins with one of %s", text, strings.Join(names, ", "))
}
