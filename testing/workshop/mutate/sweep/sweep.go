// Package sweep makes the generic breaks of a package's code, without anyone choosing them: every
// statement deleted, every condition negated, every returned error dropped, every constant
// replaced. `make mutate-sweep` (testing/workshop/mutatesweep) builds each into the operator and
// runs the unit and envtest tiers against it; a break that no test notices is a line that no test
// needs, or a behaviour that no test pins.
package sweep

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The operators, one word each, as the report names them.
const (
	// Delete removes a statement, a field of a composite literal, or a call from a chain.
	Delete = "delete"
	// Negate turns a condition into its opposite, or && into || and back.
	Negate = "negate"
	// DropError returns nil where an error was returned.
	DropError = "drop error"
	// Constant replaces a literal: a number by 0 (0 by 1), a string by "" ("" by "x"), a bool by
	// the other.
	Constant = "constant"
)

// Break is one generic break of one file.
type Break struct {
	// File is the broken file's path relative to the root it was read under, with slashes.
	File string
	// Line is where the broken code starts.
	Line int
	// Func is the function it is in ("" outside any).
	Func string
	// Operator is one of the operators above.
	Operator string
	// Was is the broken code's text, on one line; Now is what replaces it.
	Was, Now string
	// Content is the whole broken file.
	Content []byte `json:"-"`
	// node is the code the break changes, in file: what Schemata puts behind its switch.
	node ast.Node
	file *parsed
}

// parsed is a file as the breaks of it were made from it.
type parsed struct {
	fset *token.FileSet
	ast  *ast.File
	src  []byte
}

// ID names a break without its line number, so that a list of breaks (Equivalent) survives
// edits elsewhere in the file: "file function operator: was → now".
func (b Break) ID() string {
	fn := b.Func
	if fn == "" {
		fn = "(package)"
	}
	return fmt.Sprintf("%s %s %s: %s → %s", b.File, fn, b.Operator, b.Was, b.Now)
}

// Files is the Go files under root's dirs that breaks are made of: not tests, not generated code.
func Files(root string, dirs ...string) ([]string, error) {
	var files []string
	for _, dir := range dirs {
		matches, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			return nil, err
		}
		for _, path := range matches {
			if strings.HasSuffix(path, "_test.go") || strings.HasPrefix(filepath.Base(path), "zz_generated") {
				continue
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return nil, err
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	return files, nil
}

// Of makes every break of the file at root/file, in the order of the file.
func Of(root, file string) ([]Break, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	m := &maker{parsed: &parsed{fset, f, src}, file: file}
	m.walk(f)
	slices.SortStableFunc(m.breaks, func(a, b Break) int { return a.Line - b.Line })
	return m.breaks, nil
}

// maker collects the breaks of one parsed file.
type maker struct {
	*parsed
	file   string
	breaks []Break
	// fn is the function being walked, and errorLast whether its last result is an error.
	fn        string
	errorLast bool
}

// walk visits every node of f, keeping track of the function it is in.
func (m *maker) walk(f *ast.File) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			m.fn, m.errorLast = funcName(d), returnsError(d.Type)
			if d.Body != nil {
				ast.Inspect(d.Body, m.visit)
			}
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			m.fn, m.errorLast = "", false
			ast.Inspect(d, m.visit)
		}
	}
}

func (m *maker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.FuncLit:
		// A function literal has results of its own: walk it with them, then go on with the
		// enclosing function's.
		outer := m.errorLast
		m.errorLast = returnsError(n.Type)
		ast.Inspect(n.Body, m.visit)
		m.errorLast = outer
		return false
	case *ast.Field:
		// A struct tag is not logic; the field's type holds none either.
		return false
	case ast.Stmt:
		m.statement(n)
	case ast.Expr:
		m.expression(n)
	}
	return true
}

// statement makes the breaks of a statement's own: its statements deleted, its conditions
// negated, its returned error dropped.
func (m *maker) statement(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		m.deleteEach(s.List)
	case *ast.CaseClause:
		m.deleteEach(s.Body)
	case *ast.IfStmt:
		m.negate(s.Cond)
	case *ast.ForStmt:
		if s.Cond != nil {
			m.negate(s.Cond)
		}
	case *ast.SwitchStmt:
		if s.Tag != nil {
			return
		}
		for _, clause := range s.Body.List {
			if cc, ok := clause.(*ast.CaseClause); ok {
				for _, cond := range cc.List {
					m.negate(cond)
				}
			}
		}
	case *ast.ReturnStmt:
		m.dropError(s)
	}
}

// expression makes the breaks of an expression's own: && and || swapped, fields and chained
// calls left out, constants replaced.
func (m *maker) expression(e ast.Expr) {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		if other, ok := map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}[e.Op]; ok {
			m.add(e, e.OpPos, e.OpPos+token.Pos(len(e.Op.String())), Negate, other.String(), m.text(e))
		}
	case *ast.CompositeLit:
		m.deleteFields(e)
	case *ast.CallExpr:
		m.deleteFromChain(e)
	case *ast.BasicLit:
		m.replaceLiteral(e)
	case *ast.Ident:
		if other, ok := map[string]string{"true": "false", "false": "true"}[e.Name]; ok {
			m.add(e, e.Pos(), e.End(), Constant, other, e.Name)
		}
	}
}

// deleteEach breaks each statement of a list that does something by deleting it. A declaration
// (x := …) left out would not compile, so it is not tried.
func (m *maker) deleteEach(list []ast.Stmt) {
	for _, s := range list {
		switch s := s.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				continue
			}
		case *ast.DeclStmt, *ast.EmptyStmt, *ast.LabeledStmt, *ast.BlockStmt:
			continue
		}
		m.add(s, s.Pos(), s.End(), Delete, "", m.text(s))
	}
}

// negate breaks a condition by negating it.
func (m *maker) negate(cond ast.Expr) {
	m.add(cond, cond.Pos(), cond.End(), Negate, "!("+m.text(cond)+")", m.text(cond))
}

// dropError breaks a return of an error by returning nil instead.
func (m *maker) dropError(r *ast.ReturnStmt) {
	if !m.errorLast || len(r.Results) == 0 {
		return
	}
	last := r.Results[len(r.Results)-1]
	if id, ok := last.(*ast.Ident); ok && id.Name == "nil" {
		return
	}
	m.add(last, last.Pos(), last.End(), DropError, "nil", m.text(last))
}

// deleteFields breaks a composite literal by leaving out each of its keyed fields in turn.
func (m *maker) deleteFields(c *ast.CompositeLit) {
	for i, e := range c.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		// Up to the next field, or, for the last, past its trailing comma if it has one.
		end := kv.End()
		if i+1 < len(c.Elts) {
			end = c.Elts[i+1].Pos()
		} else if rest := m.src[m.fset.Position(end).Offset:]; len(bytes.TrimLeft(rest, " \t")) > 0 && bytes.TrimLeft(rest, " \t")[0] == ',' {
			end += token.Pos(len(rest) - len(bytes.TrimLeft(rest, " \t")) + 1)
		}
		m.add(kv, kv.Pos(), end, Delete, "", m.text(kv))
	}
}

// deleteFromChain breaks a chain of calls (a builder's) by leaving out one of its calls: x.f().g()
// becomes x.f().
func (m *maker) deleteFromChain(call *ast.CallExpr) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	if _, chained := sel.X.(*ast.CallExpr); !chained {
		return
	}
	// The report shows the call left out, not the chain before it.
	m.add(call, sel.X.End(), call.End(), Delete, "", "."+sel.Sel.Name+m.source(call.Lparen, call.End()))
}

// replaceLiteral breaks a number or a string by replacing it.
func (m *maker) replaceLiteral(lit *ast.BasicLit) {
	var now string
	switch lit.Kind {
	case token.INT, token.FLOAT:
		now = "0"
		if v, err := strconv.ParseFloat(strings.ReplaceAll(lit.Value, "_", ""), 64); err == nil && v == 0 {
			now = "1"
		}
	case token.STRING:
		now = `""`
		if s, err := strconv.Unquote(lit.Value); err == nil && s == "" {
			now = `"x"`
		}
	default:
		return
	}
	m.add(lit, lit.Pos(), lit.End(), Constant, now, lit.Value)
}

// add records the break of node that replaces the source from pos to end with now; was is the
// code the report shows as what was there.
func (m *maker) add(node ast.Node, pos, end token.Pos, operator, now, was string) {
	from, to := m.fset.Position(pos).Offset, m.fset.Position(end).Offset
	m.breaks = append(m.breaks, Break{
		File: m.file, Line: m.fset.Position(pos).Line, Func: m.fn, Operator: operator,
		Was: oneLine(was), Now: now, Content: slices.Concat(m.src[:from], []byte(now), m.src[to:]),
		node: node, file: m.parsed,
	})
}

// text is n's source.
func (m *maker) text(n ast.Node) string { return m.source(n.Pos(), n.End()) }

// source is the source from pos to end.
func (m *maker) source(pos, end token.Pos) string {
	return string(m.src[m.fset.Position(pos).Offset:m.fset.Position(end).Offset])
}

// oneLine is s with its whitespace runs made single spaces, cut to 80 characters.
func oneLine(s string) string {
	s = string(bytes.Join(bytes.Fields([]byte(s)), []byte(" ")))
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}

// funcName is "Recv.Name" for a method, "Name" for a function.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

// returnsError says whether a function of type t returns an error last.
func returnsError(t *ast.FuncType) bool {
	if t.Results == nil || len(t.Results.List) == 0 {
		return false
	}
	id, ok := t.Results.List[len(t.Results.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}
