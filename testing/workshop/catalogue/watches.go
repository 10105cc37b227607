package main

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"

	"example.com/operator-demo/testing/workshop/specsource"
)

// watch is a kind whose events start a reconcile, as the controller's SetupWithManager wires it.
type watch struct {
	// how is the builder's call: For (the kind reconciled), Owns (a kind it controls), Watches.
	how, kind string
	// events are those of the kind's events that its predicates let through, in words.
	events []string
	// at orders the watches as SetupWithManager makes them.
	at token.Pos
}

// watches reads the For, Owns and Watches calls of SetupWithManager, in the package in dir.
func watches(dir string) ([]watch, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Name.Name == "SetupWithManager" {
				return watchesIn(fn), nil
			}
		}
	}
	return nil, errors.New(dir + ": no SetupWithManager")
}

func watchesIn(fn *ast.FuncDecl) []watch {
	var out []watch
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		sel, isMethod := c.Fun.(*ast.SelectorExpr)
		how := specsource.Name(c)
		if !isMethod || (how != "For" && how != "Owns" && how != "Watches") {
			return true
		}
		out = append(out, watch{how: how, kind: kindOf(c.Args[0]), events: eventsLetThrough(c.Args[1:]), at: sel.Sel.Pos()})
		return true
	})
	slices.SortFunc(out, func(a, b watch) int { return int(a.at - b.at) })
	return out
}

// kindOf is the kind of `&pkg.Kind{}`.
func kindOf(e ast.Expr) string {
	if u, ok := e.(*ast.UnaryExpr); ok {
		if lit, ok := u.X.(*ast.CompositeLit); ok {
			if sel, ok := lit.Type.(*ast.SelectorExpr); ok {
				return sel.Sel.Name
			}
		}
	}
	return "?"
}

// eventsLetThrough are the events that the predicates among a watch's options
// (builder.WithPredicates(...)) let through, in words.
func eventsLetThrough(options []ast.Expr) []string {
	events := map[string]string{"CreateFunc": "its creation", "UpdateFunc": "its updates", "DeleteFunc": "its deletion"}
	var other []string
	for _, option := range options {
		c, ok := option.(*ast.CallExpr)
		if !ok || specsource.Name(c) != "WithPredicates" {
			continue
		}
		for _, arg := range c.Args {
			lit, ok := arg.(*ast.CompositeLit)
			switch {
			case ok && typeName(lit.Type) == "GenerationChangedPredicate":
				events["UpdateFunc"] = "the updates of its spec (metadata.generation), not of its status, labels or annotations"
			case ok && typeName(lit.Type) == "Funcs":
				for _, el := range lit.Elts {
					if kv, isKV := el.(*ast.KeyValueExpr); isKV && returnsFalse(kv.Value) {
						delete(events, typeName(kv.Key))
					}
				}
			default:
				other = append(other, "as filtered by a predicate")
			}
		}
	}
	var out []string
	for _, f := range []string{"CreateFunc", "UpdateFunc", "DeleteFunc"} {
		if e, ok := events[f]; ok {
			out = append(out, e)
		}
	}
	return append(out, other...)
}

func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// returnsFalse says whether e is a func literal that only returns false.
func returnsFalse(e ast.Expr) bool {
	fn, ok := e.(*ast.FuncLit)
	if !ok || len(fn.Body.List) != 1 {
		return false
	}
	ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	id, ok := ret.Results[0].(*ast.Ident)
	return ok && id.Name == "false"
}
