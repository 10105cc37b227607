package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
)

// reason is a reason of the Ready condition, as its documented constant in the API says.
type reason struct {
	Value string // "ConfigMapRefused"
	Ready string // "True" or "False"
	// what happened, and what to do about it (empty for Ready=True).
	What, Todo string
}

// reasons reads the Reason* constants of the API packages under dir, with their doc comments:
// "ReasonX (Ready=False): what happened. To do: what to do.".
func reasons(dir string) ([]reason, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.go"))
	if err != nil {
		return nil, err
	}
	var out []reason
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, s := range gen.Specs {
				if vs, isValue := s.(*ast.ValueSpec); isValue {
					if r, ok := reasonOf(vs); ok {
						out = append(out, r)
					}
				}
			}
		}
	}
	return out, nil
}

func reasonOf(vs *ast.ValueSpec) (reason, bool) {
	if len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Reason") || vs.Doc == nil || len(vs.Values) != 1 {
		return reason{}, false
	}
	lit, ok := vs.Values[0].(*ast.BasicLit)
	if !ok {
		return reason{}, false
	}
	value, err := strconv.Unquote(lit.Value)
	if err != nil {
		return reason{}, false
	}
	doc := oneLine(vs.Doc.Text())
	r := reason{Value: value}
	if _, rest, ok := strings.Cut(doc, "(Ready="); ok {
		r.Ready, rest, _ = strings.Cut(rest, "): ")
		r.What, r.Todo, _ = strings.Cut(rest, " To do: ")
	}
	return r, r.Ready != ""
}
