package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"example.com/operator-demo/testing/workshop/mutate/mutants"
	"example.com/operator-demo/testing/workshop/specreport"
	"example.com/operator-demo/testing/workshop/specsource"
)

// scenario is one scenario file: its doc comment and its specs.
type scenario struct {
	File      string
	Line      int
	Title     string // "Create"
	Behaviour string // "a new Sample gets ..."
	Lesson    string
	Source    source
	Where     string // where in the source: "§10, `kubectl apply ...`: the ConfigMap appears"
	ByHand    string
	labels    []string
	Specs     []spec
}

// spec is one It (or table Entry) with the containers above it and its By steps.
type spec struct {
	Path   []string // Context texts, outermost first
	Text   string
	Line   int
	Steps  []string
	labels []string
}

// readingOrderFile lists the scenarios' labels in the order a newcomer reads them.
const readingOrderFile = "reading-order.txt"

// reader reads the scenarios, and keeps what it cannot render truthfully: a text that is not a
// string literal, a label it does not know, a scenario out of place.
type reader struct {
	problems []string
}

func (r *reader) problem(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// scenarios reads every scenario of dir, in the reading order: the spec tree, its labels and
// locations from report (the JSON report of a Ginkgo dry run of the scenario suite, which lists
// every spec as Ginkgo sees it, on every tier), and what only the source holds from the scenario
// files: each scenario's doc comment and each spec's By steps.
func (r *reader) scenarios(dir, report string) ([]scenario, error) {
	order, err := readingOrder(filepath.Join(dir, readingOrderFile))
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	parsed := map[string]*scenarioFile{}
	for _, path := range files {
		if parsed[filepath.Base(path)], err = r.parseFile(path); err != nil {
			return nil, err
		}
	}
	specs, err := dryRun(report)
	if err != nil {
		return nil, err
	}
	r.place(specs, parsed)
	var out []scenario
	for _, path := range files {
		for _, s := range parsed[filepath.Base(path)].scenarios {
			if len(s.Specs) == 0 {
				r.problem("%s: scenario %q has no specs in the dry run (%s)", s.File, s.Title, report)
			}
			slices.SortFunc(s.Specs, func(a, b spec) int { return a.Line - b.Line })
			out = append(out, *s)
		}
	}
	r.check(out, order)
	position := func(s scenario) int {
		if i := slices.Index(order, firstLabel(s)); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(out, func(a, b scenario) int { return position(a) - position(b) })
	return out, nil
}

// firstLabel is a scenario's first label, which names it: "" if it has none.
func firstLabel(s scenario) string {
	if len(s.labels) == 0 {
		return ""
	}
	return s.labels[0]
}

// check notes each scenario out of place: not in the reading order, in a file not named for its
// first label; each label of the reading order, and of a mutant, that no scenario has.
func (r *reader) check(out []scenario, order []string) {
	for _, s := range out {
		if !slices.Contains(order, firstLabel(s)) {
			r.problem("%s: scenario %q: its first label %v is not in %s", s.File, s.Title, s.labels, readingOrderFile)
		}
		if want := fileOf(s.labels); s.File != want {
			r.problem("%s: scenario %q is labelled %v: its file should be %s, named for its first label", s.File, s.Title, s.labels, want)
		}
	}
	for _, label := range order {
		if !slices.ContainsFunc(out, func(s scenario) bool { return firstLabel(s) == label }) {
			r.problem("%s lists %q, which no scenario is labelled first", readingOrderFile, label)
		}
	}
	for _, m := range mutants.All {
		if !slices.ContainsFunc(out, func(s scenario) bool { return slices.Contains(s.labels, m.Scenario) }) {
			r.problem("mutant %q names scenario %q, which no scenario is labelled", m.Break, m.Scenario)
		}
	}
}

// dryRun reads the specs (Its and table entries) of a Ginkgo JSON report.
func dryRun(path string) ([]types.SpecReport, error) {
	reports, err := specreport.Reports(path)
	if err != nil {
		return nil, fmt.Errorf("the scenarios' dry run: %w (make catalogue writes it)", err)
	}
	var out []types.SpecReport
	for _, report := range reports {
		out = append(out, report.SpecReports.WithLeafNodeType(types.NodeTypeIt)...)
	}
	return out, nil
}

// place puts each spec of the dry run under the scenario whose Describe holds it, with its path
// below that Describe, its labels and its By steps. A table's entries read "table: entry", as
// they do in the source.
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
		sp := spec{Path: slices.Clone(s.ContainerHierarchyTexts[1:]), Text: s.LeafNodeText, Line: s.LeafNodeLocation.LineNumber,
			Steps: src.steps[s.LeafNodeLocation.LineNumber], labels: slices.Clone(s.LeafNodeLabels)}
		for _, l := range s.ContainerHierarchyLabels[1:] {
			sp.labels = append(sp.labels, l...)
		}
		if last := len(sp.Path) - 1; last >= 0 && src.tables[s.ContainerHierarchyLocations[last+1].LineNumber] {
			sp.Text = sp.Path[last] + ": " + sp.Text
			sp.Path = sp.Path[:last]
		}
		sc.Specs = append(sc.Specs, sp)
	}
}

// readingOrder reads the labels of the file at path: one a line, # starts a comment.
func readingOrder(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, nil
}

// scenarioFile is what the catalogue reads from one scenario file's source.
type scenarioFile struct {
	// scenarios are its scenarios (each a `var _ = Describe(...)` with a doc comment), and
	// describes the same by the line of their Describe.
	scenarios []*scenario
	describes map[int]*scenario
	// steps are the By texts of each It or table Entry, by its line.
	steps map[int][]string
	// tables are the lines of its DescribeTables.
	tables map[int]bool
}

// parseFile reads one scenario file's source.
func (r *reader) parseFile(path string) (*scenarioFile, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	src := &scenarioFile{describes: map[int]*scenario{}, steps: map[int][]string{}, tables: map[int]bool{}}
	line := func(n ast.Node) int { return fset.Position(n.Pos()).Line }
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR || gen.Doc == nil {
			continue
		}
		call := describeCall(gen)
		if call == nil {
			continue
		}
		s, err := parseDoc(gen.Doc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		s.File = filepath.Base(path)
		s.Line = line(gen)
		src.scenarios = append(src.scenarios, &s)
		src.describes[line(call)] = &s
	}
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch specsource.Name(c) {
		case "It":
			src.steps[line(c)] = r.steps(c)
		case "DescribeTable":
			src.tables[line(c)] = true
			body := r.steps(c)
			for _, arg := range c.Args {
				if e, ok := arg.(*ast.CallExpr); ok && specsource.Name(e) == "Entry" {
					src.steps[line(e)] = body
				}
			}
		}
		return true
	})
	return src, nil
}

// fileOf is the file a scenario with these labels is written in: its first label, with
// underscores ("skip-when-equal" is in skip_when_equal_test.go).
func fileOf(labels []string) string {
	if len(labels) == 0 {
		return "(a file named for its first label; it has none)"
	}
	return strings.ReplaceAll(labels[0], "-", "_") + "_test.go"
}

// describeCall is the Describe(...) call of `var _ = Describe(...)`, or nil.
func describeCall(gen *ast.GenDecl) *ast.CallExpr {
	if len(gen.Specs) != 1 {
		return nil
	}
	vs, ok := gen.Specs[0].(*ast.ValueSpec)
	if !ok || len(vs.Values) != 1 {
		return nil
	}
	call, ok := vs.Values[0].(*ast.CallExpr)
	if !ok || specsource.Name(call) != "Describe" {
		return nil
	}
	return call
}

// steps are the By texts inside a spec, in order.
func (r *reader) steps(call *ast.CallExpr) []string {
	var out []string
	ast.Inspect(call, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && specsource.Name(c) == "By" {
			out = append(out, r.stringArg(c))
		}
		return true
	})
	return out
}

func (r *reader) stringArg(c *ast.CallExpr) string {
	if len(c.Args) > 0 {
		if lit, ok := c.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				return s
			}
		}
	}
	r.problem("%s(...): its text is not a string literal", specsource.Name(c))
	return "?"
}
