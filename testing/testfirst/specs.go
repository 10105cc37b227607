package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Characterization is the Ginkgo label of a spec written for behaviour that already exists: it
// may pass against the base. A Go test says the same with a doc comment paragraph that starts
// "Characterization:".
const Characterization = "characterization"

// kind is what a spec is: a scenario (a Ginkgo spec of scenarios/) or a unit test.
type kind string

const (
	scenario kind = "scenario"
	unit     kind = "unit"
)

// spec is a spec or test function that the change adds or changes.
type spec struct {
	kind kind
	// pkg is the package that holds it ("./scenarios", "./controllers").
	pkg string
	// name is the scenario's full text, or the test function's name.
	name string
	// change is "new" or "changed".
	change string
	// tier is where it can run here: "envtest", "e2e" (the local e2e tier), or "" when neither runs it.
	tier             string
	characterization bool
}

// scenarioSpec is one Ginkgo spec as a dry run lists it, with the source of its body.
type scenarioSpec struct {
	name   string
	labels []string
	body   string
	// tiers are the tiers whose label filter lets it run.
	tiers []string
}

// changedScenarios are the specs of head that base does not have, by full text, or has with
// another body.
func changedScenarios(base, head []scenarioSpec) []spec {
	before := map[string]string{}
	for _, s := range base {
		if _, ok := before[s.name]; !ok {
			before[s.name] = s.body
		}
	}
	var out []spec
	for _, s := range head {
		body, existed := before[s.name]
		if existed && body == s.body {
			continue
		}
		sp := spec{kind: scenario, pkg: "./scenarios", name: s.name, change: "new", characterization: slices.Contains(s.labels, Characterization)}
		if existed {
			sp.change = "changed"
		}
		if len(s.tiers) > 0 {
			sp.tier = s.tiers[0]
		}
		out = append(out, sp)
	}
	return out
}

// specBody is the source of the spec written at file:line: the It (or Entry) call, and for a
// table entry the table's body too, as tokens, so that comments and layout do not count as a change.
func specBody(file string, line int) (string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		return "", err
	}
	found, table := specCall(fset, f, line)
	if found == nil {
		return "", fmt.Errorf("%s:%d: no It or Entry there", file, line)
	}
	body := tokens(fset, src, found)
	if table != nil {
		for _, arg := range table.Args {
			if e, ok := arg.(*ast.CallExpr); !ok || callName(e) != "Entry" {
				body += " , " + tokens(fset, src, arg)
			}
		}
	}
	return body, nil
}

// tokens is the source of n as its tokens, one space apart: no comments, no layout.
func tokens(fset *token.FileSet, src []byte, n ast.Node) string {
	start, end := fset.Position(n.Pos()).Offset, fset.Position(n.End()).Offset
	var s scanner.Scanner
	s.Init(fset.AddFile("", -1, end-start), src[start:end], nil, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return strings.Join(out, " ")
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line end: layout, not code
		}
		if lit == "" {
			lit = tok.String()
		}
		out = append(out, lit)
	}
}

// specCall is the It (or Entry, with its DescribeTable) written at line of f.
func specCall(fset *token.FileSet, f *ast.File, line int) (spec, table *ast.CallExpr) {
	at := func(n ast.Node) bool { return fset.Position(n.Pos()).Line == line }
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		switch {
		case spec != nil:
			return false
		case !ok:
			return true
		case (callName(c) == "It" || callName(c) == "Specify") && at(c):
			spec = c
		case callName(c) == "DescribeTable" || callName(c) == "DescribeTableSubtree":
			for _, arg := range c.Args {
				if e, isCall := arg.(*ast.CallExpr); isCall && callName(e) == "Entry" && at(e) {
					spec, table = e, c
				}
			}
		}
		return spec == nil
	})
	return spec, table
}

func callName(c *ast.CallExpr) string {
	switch fn := c.Fun.(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		return fn.Sel.Name
	}
	return ""
}

// unitTest is a test function as its source has it.
type unitTest struct {
	pkg, name, body  string
	characterization bool
}

// unitTests are the test functions (func TestX(t *testing.T)) in the _test.go files under dirs of
// the tree at root, with their bodies printed from the syntax tree.
func unitTests(root string, dirs ...string) ([]unitTest, error) {
	var out []unitTest
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			tests, err := testFuncs(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			for i := range tests {
				tests[i].pkg = "./" + filepath.ToSlash(rel)
			}
			out = append(out, tests...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func testFuncs(path string) ([]unitTest, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []unitTest
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
			continue
		}
		out = append(out, unitTest{name: fn.Name.Name, body: tokens(fset, src, fn.Body), characterization: isCharacterization(fn.Doc)})
	}
	return out, nil
}

// isCharacterization: a paragraph of the doc comment starts "Characterization:".
func isCharacterization(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for para := range strings.SplitSeq(doc.Text(), "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(para), "Characterization:") {
			return true
		}
	}
	return false
}

// changedUnitTests are the test functions of head that base lacks, or has with another body.
func changedUnitTests(base, head []unitTest) []spec {
	before := map[string]string{}
	for _, t := range base {
		before[t.pkg+"."+t.name] = t.body
	}
	var out []spec
	for _, t := range head {
		body, existed := before[t.pkg+"."+t.name]
		if existed && body == t.body {
			continue
		}
		s := spec{kind: unit, pkg: t.pkg, name: t.name, change: "new", tier: "unit", characterization: t.characterization}
		if existed {
			s.change = "changed"
		}
		out = append(out, s)
	}
	return out
}

// readScenarioSpecs reads a dry run's specs and the source of each one's body from tree.
func readScenarioSpecs(tree string, listed []listedSpec) ([]scenarioSpec, error) {
	out := make([]scenarioSpec, 0, len(listed))
	for _, l := range listed {
		body, err := specBody(filepath.Join(tree, l.file), l.line)
		if err != nil {
			return nil, err
		}
		out = append(out, scenarioSpec{name: l.name, labels: l.labels, body: body, tiers: l.tiers})
	}
	return out, nil
}

// listedSpec is a spec as the suite's dry runs list it, on every tier.
type listedSpec struct {
	name   string
	labels []string
	file   string
	line   int
	tiers  []string
}

// fileExists says whether path names a file or directory.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
