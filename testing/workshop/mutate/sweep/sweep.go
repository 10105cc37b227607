// Package sweep makes the generic breaks of a package's code (make mutate-sweep).
package sweep

import (
	"bytes"
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The operators, as the report names them.
const (
	Delete    = "delete"
	Negate    = "negate"
	DropError = "drop error"
	Constant  = "constant"
)

// Break is one break of File at Line (to Last, where what it replaces ends), in Func: Was becomes
// Now; Content is the whole broken file.
type Break struct {
	File           string
	Line, Last     int
	Func, Operator string
	Was, Now       string
	Content        []byte `json:"-"`
	node           ast.Node
	file           *parsed
}

// parsed is a file as its breaks were made from it.
type parsed struct {
	fset *token.FileSet
	ast  *ast.File
	src  []byte
}

// ID names a break without its line, so that Equivalent survives edits elsewhere in the file.
func (b Break) ID() string {
	return fmt.Sprintf("%s %s %s: %s → %s", b.File, cmp.Or(b.Func, "(package)"), b.Operator, b.Was, b.Now)
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
	for _, decl := range f.Decls {
		m.fn, m.errorLast = "", false
		if d, ok := decl.(*ast.FuncDecl); ok {
			m.fn, m.errorLast = funcName(d), returnsError(d.Type)
		}
		ast.Inspect(decl, m.visit)
	}
	slices.SortStableFunc(m.breaks, func(a, b Break) int { return a.Line - b.Line })
	return m.breaks, nil
}

// maker collects the breaks of one file, in fn, which returns an error last if errorLast.
type maker struct {
	*parsed
	file      string
	breaks    []Break
	fn        string
	errorLast bool
}

func (m *maker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.FuncLit: // its own results, then the enclosing function's again
		outer := m.errorLast
		m.errorLast = returnsError(n.Type)
		ast.Inspect(n.Body, m.visit)
		m.errorLast = outer
		return false
	case *ast.Field, *ast.ImportSpec: // neither a field's type and tag nor an import is logic
		return false
	case ast.Stmt:
		m.statement(n)
	case ast.Expr:
		m.expression(n)
	}
	return true
}

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
		for _, clause := range s.Body.List {
			if cc, ok := clause.(*ast.CaseClause); ok && s.Tag == nil {
				for _, cond := range cc.List {
					m.negate(cond)
				}
			}
		}
	case *ast.ReturnStmt:
		if last := len(s.Results) - 1; m.errorLast && last >= 0 && m.text(s.Results[last]) != "nil" {
			m.add(s.Results[last], s.Results[last].Pos(), s.Results[last].End(), DropError, "nil", m.text(s.Results[last]))
		}
	}
}

func (m *maker) expression(e ast.Expr) {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		if other, ok := map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}[e.Op]; ok {
			m.add(e, e.OpPos, e.OpPos+token.Pos(len(e.Op.String())), Negate, other.String(), m.text(e))
		}
	case *ast.CompositeLit:
		m.deleteFields(e)
	case *ast.CallExpr: // a call left out of a chain (a builder's): x.f().g() becomes x.f()
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if _, chained := sel.X.(*ast.CallExpr); chained {
				m.add(e, sel.X.End(), e.End(), Delete, "", "."+sel.Sel.Name+m.source(e.Lparen, e.End()))
			}
		}
	case *ast.BasicLit:
		m.replaceLiteral(e)
	case *ast.Ident:
		if other, ok := map[string]string{"true": "false", "false": "true"}[e.Name]; ok {
			m.add(e, e.Pos(), e.End(), Constant, other, e.Name)
		}
	}
}

// deleteEach deletes each statement of a list but a declaration, which would not compile.
func (m *maker) deleteEach(list []ast.Stmt) {
	for _, s := range list {
		if a, ok := s.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
			continue
		}
		switch s.(type) {
		case *ast.DeclStmt, *ast.EmptyStmt, *ast.LabeledStmt, *ast.BlockStmt:
			continue
		}
		m.add(s, s.Pos(), s.End(), Delete, "", m.text(s))
	}
}

func (m *maker) negate(cond ast.Expr) {
	m.add(cond, cond.Pos(), cond.End(), Negate, "!("+m.text(cond)+")", m.text(cond))
}

// deleteFields leaves out each keyed field of a composite literal, with its comma.
func (m *maker) deleteFields(c *ast.CompositeLit) {
	for i, e := range c.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		end := kv.End()
		if rest := bytes.TrimLeft(m.src[m.fset.Position(end).Offset:], " \t"); i+1 < len(c.Elts) {
			end = c.Elts[i+1].Pos()
		} else if len(rest) > 0 && rest[0] == ',' {
			end += token.Pos(len(m.src[m.fset.Position(end).Offset:]) - len(rest) + 1)
		}
		m.add(kv, kv.Pos(), end, Delete, "", m.text(kv))
	}
}

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

// add records the break of node that replaces the source from pos to end with now.
func (m *maker) add(node ast.Node, pos, end token.Pos, operator, now, was string) {
	from, to := m.fset.Position(pos).Offset, m.fset.Position(end).Offset
	if was = strings.Join(strings.Fields(was), " "); len([]rune(was)) > 80 {
		was = string([]rune(was)[:77]) + "..."
	}
	m.breaks = append(m.breaks, Break{
		File: m.file, Line: m.fset.Position(pos).Line, Last: m.fset.Position(node.End()).Line, Func: m.fn, Operator: operator, Was: was, Now: now,
		Content: slices.Concat(m.src[:from], []byte(now), m.src[to:]), node: node, file: m.parsed,
	})
}

func (m *maker) text(n ast.Node) string { return m.source(n.Pos(), n.End()) }

func (m *maker) source(pos, end token.Pos) string {
	return string(m.src[m.fset.Position(pos).Offset:m.fset.Position(end).Offset])
}

// funcName is "Recv.Name" for a method, "Name" for a function.
func funcName(d *ast.FuncDecl) string {
	if d.Recv != nil && len(d.Recv.List) > 0 {
		return strings.TrimPrefix(types.ExprString(d.Recv.List[0].Type), "*") + "." + d.Name.Name
	}
	return d.Name.Name
}

func returnsError(t *ast.FuncType) bool {
	if t.Results == nil || len(t.Results.List) == 0 {
		return false
	}
	id, ok := t.Results.List[len(t.Results.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}
