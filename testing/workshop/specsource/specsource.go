// Package specsource reads Ginkgo specs from their Go source (for the catalogue, make test-first).
package specsource

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
)

// File is a parsed Go file of specs, and its specs by the line each is written on.
type File struct {
	*ast.File
	Fset  *token.FileSet
	Src   []byte
	Specs map[int]Spec
}

// Spec is an It or Specify, or an Entry with its DescribeTable; pending (PIt, XEntry, …) or focused
// (FIt, …) alike.
type Spec struct{ Call, Table *ast.CallExpr }

// Parse reads the Go file at path and finds its specs.
func Parse(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &File{Fset: token.NewFileSet(), Src: src, Specs: map[int]Spec{}}
	if f.File, err = parser.ParseFile(f.Fset, path, src, parser.ParseComments); err != nil {
		return nil, err
	}
	ast.Inspect(f.File, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch Unmarked(Name(c)) {
		case "It", "Specify":
			f.Specs[f.Fset.Position(c.Pos()).Line] = Spec{Call: c}
		case "DescribeTable", "DescribeTableSubtree":
			for _, arg := range c.Args {
				if e, isCall := arg.(*ast.CallExpr); isCall && Unmarked(Name(e)) == entry {
					f.Specs[f.Fset.Position(e.Pos()).Line] = Spec{Call: e, Table: c}
				}
			}
		}
		return true
	})
	return f, nil
}

// Body is the spec written at line as Tokens (the It or Entry, an Entry's table too).
func (f *File) Body(line int) (string, error) {
	s, found := f.Specs[line]
	if !found {
		return "", fmt.Errorf("%s:%d: no It or Entry there", f.Fset.File(f.Pos()).Name(), line)
	}
	body := f.Tokens(s.Call)
	if s.Table != nil {
		for _, arg := range s.Table.Args {
			if e, ok := arg.(*ast.CallExpr); !ok || Unmarked(Name(e)) != entry {
				body += " , " + f.Tokens(arg)
			}
		}
	}
	return body, nil
}

// Comment is the comment that ends on the line just above line: the doc of what is written there.
func (f *File) Comment(line int) string {
	for _, g := range f.Comments {
		if f.Fset.Position(g.End()).Line == line-1 {
			return g.Text()
		}
	}
	return ""
}

// Tokens is the source of n as its tokens, one space apart: no comments, no layout.
func (f *File) Tokens(n ast.Node) string {
	start, end := f.Fset.Position(n.Pos()).Offset, f.Fset.Position(n.End()).Offset
	var s scanner.Scanner
	s.Init(token.NewFileSet().AddFile("", -1, end-start), f.Src[start:end], nil, 0)
	var out []string
	for _, tok, lit := s.Scan(); tok != token.EOF; _, tok, lit = s.Scan() {
		if tok != token.SEMICOLON || lit != "\n" { // one inserted at a line end is layout, not code
			out = append(out, cmp.Or(lit, tok.String()))
		}
	}
	return strings.Join(out, " ")
}

// Steps are the texts of the By calls in s (an Entry: in its table), in order: "" for one whose
// text is not a string literal.
func (s Spec) Steps() []string {
	var out []string
	ast.Inspect(cmp.Or(s.Table, s.Call), func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && Name(c) == "By" {
			text := ""
			if lit, isLit := c.Args[0].(*ast.BasicLit); isLit && lit.Kind == token.STRING {
				text, _ = strconv.Unquote(lit.Value) // the parser has checked its quotes
			}
			out = append(out, text)
		}
		return true
	})
	return out
}

// entry is the name of a table's spec, Entry.
const entry = "Entry"

// Name is the name of the function a call calls: "It" for It(...) and for ginkgo.It(...).
func Name(c *ast.CallExpr) string {
	switch fn := c.Fun.(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		return fn.Sel.Name
	}
	return ""
}

// marked are the nodes that Ginkgo marks pending by a P or an X before their name, focused by an F.
var marked = []string{"It", "Specify", entry, "DescribeTable", "DescribeTableSubtree", "Describe", "Context", "When"}

// Unmarked is a node's name without the mark that makes it pending or focused: "It" for PIt, XIt and FIt.
func Unmarked(name string) string {
	for _, mark := range []string{"P", "X", "F"} {
		if node, ok := strings.CutPrefix(name, mark); ok && slices.Contains(marked, node) {
			return node
		}
	}
	return name
}
