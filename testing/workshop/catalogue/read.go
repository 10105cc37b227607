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

	"example.com/operator-demo/testing/tiers"
	"example.com/operator-demo/testing/workshop/mutate/mutants"
	"example.com/operator-demo/testing/workshop/specsource"
)

// scenario is one scenario file: its doc comment and its specs.
type scenario struct {
	file      string
	line      int
	title     string // "Create"
	behaviour string // "a new Sample gets ..."
	lesson    string
	source    source
	where     string // where in the source: "§10, `kubectl apply ...`: the ConfigMap appears"
	byHand    string
	labels    []string
	specs     []spec
}

// spec is one It (or table Entry) with the containers above it and its By steps.
type spec struct {
	path   []string // Context texts, outermost first
	text   string
	line   int
	steps  []string
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

// scenarios reads every scenario of dir, in the reading order.
func (r *reader) scenarios(dir string) ([]scenario, error) {
	order, err := readingOrder(filepath.Join(dir, readingOrderFile))
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var out []scenario
	for _, path := range files {
		found, err := r.file(path)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	position := func(s scenario) int {
		if len(s.labels) == 0 || !slices.Contains(order, s.labels[0]) {
			return len(order)
		}
		return slices.Index(order, s.labels[0])
	}
	for _, s := range out {
		if position(s) == len(order) {
			r.problem("%s: scenario %q: its first label %v is not in %s", s.file, s.title, s.labels, readingOrderFile)
		}
		if want := fileOf(s.labels); s.file != want {
			r.problem("%s: scenario %q is labelled %v: its file should be %s, named for its first label", s.file, s.title, s.labels, want)
		}
	}
	for _, label := range order {
		if !slices.ContainsFunc(out, func(s scenario) bool { return len(s.labels) > 0 && s.labels[0] == label }) {
			r.problem("%s lists %q, which no scenario is labelled first", readingOrderFile, label)
		}
	}
	for _, m := range mutants.All {
		if !slices.ContainsFunc(out, func(s scenario) bool { return slices.Contains(s.labels, m.Scenario) }) {
			r.problem("mutant %q names scenario %q, which no scenario is labelled", m.Break, m.Scenario)
		}
	}
	slices.SortStableFunc(out, func(a, b scenario) int { return position(a) - position(b) })
	return out, nil
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

// file reads the scenarios of one file: each `var _ = Describe(...)` with a doc comment.
func (r *reader) file(path string) ([]scenario, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []scenario
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
		s.file = filepath.Base(path)
		s.line = fset.Position(gen.Pos()).Line
		s.labels = r.labelsOf(call.Args)
		r.walk(fset, call, nil, &s.specs)
		out = append(out, s)
	}
	return out, nil
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

// walk collects the specs under a Ginkgo container call.
func (r *reader) walk(fset *token.FileSet, call *ast.CallExpr, path []string, out *[]spec) {
	ast.Inspect(call, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || c == call {
			return true
		}
		switch specsource.Name(c) {
		case "Context", "Describe", "When":
			r.walk(fset, c, append(slices.Clone(path), r.stringArg(c)), out)
			return false
		case "It":
			*out = append(*out, spec{path: path, text: r.stringArg(c), line: fset.Position(c.Pos()).Line, steps: r.steps(c), labels: r.labelsOf(c.Args)})
			return false
		case "DescribeTable":
			table := r.stringArg(c)
			body := r.steps(c)
			for _, arg := range c.Args {
				if e, ok := arg.(*ast.CallExpr); ok && specsource.Name(e) == "Entry" {
					*out = append(*out, spec{path: path, text: table + ": " + r.stringArg(e), line: fset.Position(e.Pos()).Line, steps: body})
				}
			}
			return false
		}
		return true
	})
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

// needs maps the label constants of package tiers to their values.
var needs = map[string]string{
	"NeedsInProcessOperator": tiers.NeedsInProcessOperator,
	"NeedsOperatorProcess":   tiers.NeedsOperatorProcess,
	"NeedsKill":              tiers.NeedsKill,
	"NeedsGarbageCollector":  tiers.NeedsGarbageCollector,
}

// labelsOf reads the Label(...) decorators among a container's arguments.
func (r *reader) labelsOf(args []ast.Expr) []string {
	var out []string
	for _, arg := range args {
		c, ok := arg.(*ast.CallExpr)
		if !ok || specsource.Name(c) != "Label" {
			continue
		}
		for _, a := range c.Args {
			switch v := a.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(v.Value); err == nil {
					out = append(out, s)
				}
			case *ast.SelectorExpr:
				l, ok := needs[v.Sel.Name]
				if !ok {
					r.problem("unknown label %s", v.Sel.Name)
				}
				out = append(out, l)
			}
		}
	}
	return out
}
