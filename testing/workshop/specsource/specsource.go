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
	"strings"
)

// Body is the spec written at file:line as Tokens (the It or Entry, an Entry's table too), and the comment just above it.
func Body(file string, line int) (body, comment string, err error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", "", err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return "", "", err
	}
	found, table := call(fset, f, line)
	if found == nil {
		return "", "", fmt.Errorf("%s:%d: no It or Entry there", file, line)
	}
	for _, g := range f.Comments {
		if fset.Position(g.End()).Line == line-1 {
			comment = g.Text()
		}
	}
	body = Tokens(fset, src, found)
	for _, arg := range table {
		if e, ok := arg.(*ast.CallExpr); !ok || Name(e) != "Entry" {
			body += " , " + Tokens(fset, src, arg)
		}
	}
	return body, comment, nil
}

// Tokens is the source of n as its tokens, one space apart: no comments, no layout.
func Tokens(fset *token.FileSet, src []byte, n ast.Node) string {
	start, end := fset.Position(n.Pos()).Offset, fset.Position(n.End()).Offset
	var s scanner.Scanner
	s.Init(fset.AddFile("", -1, end-start), src[start:end], nil, 0)
	var out []string
	for _, tok, lit := s.Scan(); tok != token.EOF; _, tok, lit = s.Scan() {
		if tok != token.SEMICOLON || lit != "\n" { // one inserted at a line end is layout, not code
			out = append(out, cmp.Or(lit, tok.String()))
		}
	}
	return strings.Join(out, " ")
}

// call is the It (or Entry, with its DescribeTable's arguments) written at line of f.
func call(fset *token.FileSet, f *ast.File, line int) (spec *ast.CallExpr, table []ast.Expr) {
	at := func(n ast.Node) bool { return fset.Position(n.Pos()).Line == line }
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		switch {
		case spec != nil || !ok:
			return spec == nil
		case (Name(c) == "It" || Name(c) == "Specify") && at(c):
			spec = c
		case Name(c) == "DescribeTable" || Name(c) == "DescribeTableSubtree":
			for _, arg := range c.Args {
				if e, isCall := arg.(*ast.CallExpr); isCall && Name(e) == "Entry" && at(e) {
					spec, table = e, c.Args
				}
			}
		}
		return spec == nil
	})
	return spec, table
}

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
