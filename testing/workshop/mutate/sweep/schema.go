package sweep

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// Env numbers the break a Schema's binary makes (from 1); HitsEnv, a file for each break that runs.
const (
	Env     = "SWEEP_BREAK"
	HitsEnv = "SWEEP_HITS"
)

// switchImports are what switchSource, the file added to each package a Schema changes, imports.
var switchImports = []string{"os", "strconv", "sync"}

const switchSource = `package %s

import (
	"os"
	"strconv"
	"sync"
)

var (
	sweepBreak, _ = strconv.Atoi(os.Getenv("` + Env + `"))
	sweepHits     = os.Getenv("` + HitsEnv + `")
	sweepSeen     sync.Map
)

func sweepOn(id int) bool {
	if _, seen := sweepSeen.LoadOrStore(id, true); !seen && sweepHits != "" {
		if f, err := os.OpenFile(sweepHits, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_, _ = f.WriteString(strconv.Itoa(id) + "\n")
			_ = f.Close()
		}
	}
	return id == sweepBreak
}

func sweepPick[T any](id int, was, now T) T { if sweepOn(id) { return now }; return was }

func sweepZero[T any](id int, v T) T { var zero T; return sweepPick(id, v, zero) }
`

// Schema is breaks built into one overlay, each behind a switch or not Switched; Vars: consts made var.
type Schema struct {
	Overlay  map[string]string
	Switched []bool
	Vars     []string
}

// Build makes and builds the schema of breaks; a const that the build needs constant stays so.
func Build(c *Checker, breaks []Break, build func(overlay map[string]string) ([]byte, error)) (Schema, error) {
	s, dirs := Schema{Switched: slices.Repeat([]bool{true}, len(breaks))}, map[string]bool{}
	for _, b := range breaks {
		dirs[path.Dir(b.File)] = true
	}
	var constants []string
	for {
		s.Overlay, s.Vars = map[string]string{}, nil
		failed := make([]error, 0, len(dirs))
		for _, dir := range slices.Sorted(maps.Keys(dirs)) {
			failed = append(failed, c.schemata(dir, breaks, &s, constants)...)
		}
		err := errors.Join(failed...)
		if err == nil {
			out, buildErr := build(s.Overlay)
			if buildErr == nil {
				return s, nil
			}
			err = fmt.Errorf("%w\n%s", buildErr, out)
		}
		named := slices.DeleteFunc(slices.Clone(s.Vars), func(v string) bool {
			return slices.Contains(constants, v) || !regexp.MustCompile(`\b`+v+`\b`).MatchString(err.Error())
		})
		if len(named) == 0 {
			return s, fmt.Errorf("build the schemata: %w", err)
		}
		constants = append(constants, named...)
	}
}

// schemata renders dir's package into s, each break a type error falls in off its switch.
func (c *Checker) schemata(dir string, breaks []Break, s *Schema, constants []string) []error {
	typesAt, errs := c.check(dir, nil, true)
	if len(errs) > 0 {
		return errs
	}
	switchFile := map[string][]byte{path.Join(dir, "zz_sweep_switch.go"): fmt.Appendf(nil, switchSource, c.pkgs[dir].Name)}
	for {
		r := renderer{breaks: breaks, typesAt: typesAt, constants: constants, switched: s.Switched, files: maps.Clone(switchFile), spans: map[string][]item{}}
		for _, b := range breaks {
			if path.Dir(b.File) == dir && r.files[b.File] == nil {
				r.render(b.File, b.file.src)
			}
		}
		_, errs := c.check(dir, r.files, false)
		outside := slices.DeleteFunc(errs, func(err error) bool {
			i := r.blame(err)
			if i >= 0 {
				s.Switched[i] = false
			}
			return i >= 0
		})
		if len(outside) == len(errs) {
			for file, content := range r.files {
				s.Overlay[filepath.Join(c.root, filepath.FromSlash(file))] = string(content)
			}
			s.Vars = append(s.Vars, r.vars...)
			return outside
		}
	}
}

// item rewrites the source from, to as parts between holes (source ranges); breakIndex: its break or -1.
type item struct {
	from, to   int
	parts      []string
	holes      [][2]int
	breakIndex int
}

// renderer renders files with their breaks behind their switches.
type renderer struct {
	breaks          []Break
	typesAt         map[exprAt]types.TypeAndValue
	constants, vars []string
	switched        []bool
	files           map[string][]byte
	spans           map[string][]item // by file: where each break's code went
}

// render renders file, src, with each of its breaks behind its switch, or marks it not switched.
func (r *renderer) render(file string, src []byte) {
	var items []item
	converted := map[*ast.GenDecl]bool{}
	for i, b := range r.breaks {
		if b.File != file || !r.switched[i] {
			continue
		}
		it, ok := r.item(b, i)
		decl, convertible := r.constDecl(b)
		r.switched[i] = ok && (decl == nil || convertible)
		if !r.switched[i] {
			continue
		}
		items = append(items, it)
		if decl != nil && !converted[decl] {
			converted[decl] = true
			for _, spec := range decl.Specs {
				if v, isValue := spec.(*ast.ValueSpec); isValue {
					for _, name := range v.Names {
						r.vars = append(r.vars, name.Name)
					}
				}
			}
			at := b.file.fset.Position(decl.TokPos).Offset
			items = append(items, item{from: at, to: at + len("const"), parts: []string{"var"}, breakIndex: -1})
		}
	}
	slices.SortStableFunc(items, func(a, b item) int { return cmp.Or(a.from-b.from, b.to-a.to) })
	var out bytes.Buffer
	r.write(&out, file, src, 0, len(src), items)
	r.files[file] = out.Bytes()
}

// write writes src from, to with items (sorted, all within) rewritten.
func (r *renderer) write(out *bytes.Buffer, file string, src []byte, from, to int, items []item) {
	for len(items) > 0 {
		it, n := items[0], 1
		for n < len(items) && items[n].from < it.to {
			n++
		}
		inner := items[1:n]
		items = items[n:]
		out.Write(src[from:it.from])
		start := out.Len()
		for k, hole := range it.holes {
			out.WriteString(it.parts[k])
			r.write(out, file, src, hole[0], hole[1], slices.DeleteFunc(slices.Clone(inner), func(x item) bool { return x.from < hole[0] || x.to > hole[1] }))
		}
		out.WriteString(it.parts[len(it.holes)])
		if it.breakIndex >= 0 {
			r.spans[file] = append(r.spans[file], item{from: start, to: out.Len(), breakIndex: it.breakIndex})
		}
		from = it.to
	}
	out.Write(src[from:to])
}

// blame is the break whose switched code holds err, a type or syntax error, most closely; -1 for none.
func (r *renderer) blame(err error) int {
	var pos token.Position
	var te types.Error
	var syntax scanner.ErrorList
	switch {
	case errors.As(err, &te):
		pos = te.Fset.Position(te.Pos)
	case errors.As(err, &syntax) && len(syntax) > 0: // a select's case in an if, say: not switched
		pos = syntax[0].Pos
	default:
		return -1
	}
	best, size := -1, 0
	for file, spans := range r.spans {
		for _, s := range spans {
			if strings.HasSuffix(pos.Filename, filepath.FromSlash(file)) && s.from <= pos.Offset && pos.Offset < s.to && (best < 0 || s.to-s.from < size) {
				best, size = s.breakIndex, s.to-s.from
			}
		}
	}
	return best
}

// item is how break i (b) goes behind its switch, numbered i+1; false when it cannot.
func (r *renderer) item(b Break, i int) (item, bool) {
	rangeOf := func(n ast.Node) [2]int {
		return [2]int{b.file.fset.Position(n.Pos()).Offset, b.file.fset.Position(n.End()).Offset}
	}
	id, whole := strconv.Itoa(i+1), rangeOf(b.node)
	it := item{from: whole[0], to: whole[1], holes: [][2]int{whole}, breakIndex: i}
	kv, isField := b.node.(*ast.KeyValueExpr)
	logic, isLogic := b.node.(*ast.BinaryExpr)
	clause, isClause := b.node.(*ast.CaseClause)
	_, isStmt := b.node.(ast.Stmt)
	expr, isExpr := b.node.(ast.Expr)
	switch {
	case b.Operator == Delete && isClause:
		return clauseItem(b, it, clause, rangeOf, id)
	case b.Operator == Delete && isStmt:
		it.parts = []string{"if !sweepOn(" + id + ") { ", " }"}
	case b.Operator == Delete && isField:
		targ, ok := r.typeArg(b, kv.Value)
		it.holes = [][2]int{rangeOf(kv.Value)}
		it.from, it.to, it.parts = it.holes[0][0], it.holes[0][1], []string{"sweepZero" + targ + "(" + id + ", ", ")"}
		return it, ok
	case b.Operator == Negate && isLogic && len(b.Now) == 2: // && for ||, || for &&
		// Both ways written out, so that each keeps its short circuit.
		x, y := rangeOf(logic.X), rangeOf(logic.Y)
		it.holes = [][2]int{x, y, x, y}
		was, now := logic.Op.String(), b.Now
		it.parts = []string{"sweepPick(" + id + ", func() bool { return (", ") " + was + " (", ") }, func() bool { return (", ") " + now + " (", ") })()"}
	case b.Operator == Negate:
		it.parts = []string{"(", ") != sweepOn(" + id + ")"}
	case b.Operator == DropError:
		it.parts = []string{"sweepPick(" + id + ", func() error { return ", " }, func() error { return nil })()"}
	case b.Operator == Constant && isExpr:
		// A constant's type is named: Go would infer an untyped constant's default type.
		targ, ok := r.typeArg(b, expr)
		it.holes, it.parts = nil, []string{"sweepPick" + targ + "(" + id + ", " + string(b.file.src[whole[0]:whole[1]]) + ", " + b.Now + ")"}
		return it, ok && len(targ) > 0
	}
	// A call left out of a builder's chain is not switched: the chain's type would change.
	return it, it.parts != nil
}

// clauseItem switches a case clause's deletion: a tagged switch's (but default's) is not switched.
func clauseItem(b Break, it item, c *ast.CaseClause, rangeOf func(ast.Node) [2]int, id string) (item, bool) {
	on := "!sweepOn(" + id + ")"
	if len(c.List) == 0 {
		if len(c.Body) > 0 {
			it.from, it.to = rangeOf(c.Body[0])[0], rangeOf(c.Body[len(c.Body)-1])[1]
			it.holes, it.parts = [][2]int{{it.from, it.to}}, []string{"if " + on + " { ", " }"}
		}
		return it, len(c.Body) > 0
	}
	path, _ := astutil.PathEnclosingInterval(b.file.ast, c.Pos(), c.End()) // c, its switch's body, its switch
	s, isSwitch := path[2].(*ast.SwitchStmt)
	it.from, it.to, it.holes, it.parts = rangeOf(c.List[0])[0], rangeOf(c.List[len(c.List)-1])[1], nil, []string{on + " && ("}
	for k, e := range c.List {
		if k > 0 {
			it.parts = append(it.parts, ")"+string(b.file.src[it.holes[k-1][1]:rangeOf(e)[0]])+on+" && (")
		}
		it.holes = append(it.holes, rangeOf(e))
	}
	it.parts = append(it.parts, ")")
	return it, isSwitch && s.Tag == nil
}

// typeArg is the type argument a switch of e needs ("": inferred); false when the file cannot name it.
func (r *renderer) typeArg(b Break, e ast.Expr) (string, bool) {
	tv := r.typesAt[exprAt{b.File, b.file.fset.Position(e.Pos()).Offset, b.file.fset.Position(e.End()).Offset}]
	if tv.Type == nil || tv.Value == nil && !tv.IsNil() {
		return "", tv.Type != nil
	}
	t := types.Default(tv.Type)
	if basic, ok := t.(*types.Basic); ok && basic.Info()&types.IsUntyped != 0 {
		return "", false
	}
	named := true
	name := types.TypeString(t, func(p *types.Package) string {
		for _, imp := range b.file.ast.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == p.Path() && imp.Name != nil {
				return strings.TrimPrefix(imp.Name.Name, ".") // a dot import's names stand alone
			} else if path == p.Path() {
				return p.Name()
			}
		}
		named = named && p.Name() == b.file.ast.Name.Name
		return ""
	})
	return "[" + name + "]", named
}

// constDecl is the const declaration holding b, if any, and whether it may be made var.
func (r *renderer) constDecl(b Break) (*ast.GenDecl, bool) {
	path, _ := astutil.PathEnclosingInterval(b.file.ast, b.node.Pos(), b.node.End())
	g, ok := path[len(path)-2].(*ast.GenDecl) // the file's declaration that holds b
	if !ok || g.Tok != token.CONST {
		return nil, false
	}
	text := string(b.file.src[b.file.fset.Position(g.Pos()).Offset:b.file.fset.Position(g.End()).Offset])
	return g, !strings.Contains(text, "iota") && !slices.ContainsFunc(g.Specs, func(s ast.Spec) bool {
		v, ok := s.(*ast.ValueSpec)
		return !ok || len(v.Values) == 0 || slices.ContainsFunc(v.Names, func(n *ast.Ident) bool { return slices.Contains(r.constants, n.Name) })
	})
}
