package sweep

import (
	"fmt"
	"go/ast"
	gobuild "go/build"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Checker type-checks breaks in memory: milliseconds a break, where go build takes seconds.
type Checker struct {
	root    string
	pkgs    map[string]*packages.Package
	imports map[string]*types.Package
}

// newChecker loads the packages of root's dirs.
func newChecker(root string, dirs ...string) (*Checker, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	patterns := slices.Clone(switchImports)
	for _, d := range dirs {
		patterns = append(patterns, "./"+d)
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedTypes, Dir: root}, patterns...)
	if err != nil {
		return nil, err
	}
	c := &Checker{root: root, pkgs: map[string]*packages.Package{}, imports: map[string]*types.Package{}}
	packages.Visit(pkgs, nil, func(p *packages.Package) { c.imports[p.PkgPath] = p.Types })
	for _, p := range pkgs { // switchImports' too, by a directory outside root
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("load %s: %w", p.PkgPath, p.Errors[0])
		}
		c.pkgs[c.rel(filepath.Dir(p.GoFiles[0]))] = p
	}
	return c, nil
}

// Compiling makes the kept breaks of root's dirs (not generated files) that compile; it counts the
// rest. The breaks are kept from the parsed files first: the packages are loaded, and their
// dependencies built, only for a break kept (c is nil when none is).
func Compiling(root string, dirs []string, keep func(Break) bool) (c *Checker, breaks []Break, notCompiled int, err error) {
	var kept []Break
	for _, dir := range dirs {
		p, err := gobuild.ImportDir(filepath.Join(root, filepath.FromSlash(dir)), 0)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("list the files of %s: %w", dir, err)
		}
		for _, name := range p.GoFiles {
			all, err := Of(root, path.Join(dir, name))
			if err != nil {
				return nil, nil, 0, err
			}
			kept = append(kept, slices.DeleteFunc(all, func(b Break) bool {
				return strings.HasPrefix(name, "zz_generated") || !keep(b)
			})...)
		}
	}
	if len(kept) == 0 {
		return nil, nil, 0, nil
	}
	if c, err = newChecker(root, dirs...); err != nil {
		return nil, nil, 0, err
	}
	for _, b := range kept { // b's package, with b made, type-checks
		if _, errs := c.check(path.Dir(b.File), map[string][]byte{b.File: b.Content}, false); len(errs) == 0 {
			breaks = append(breaks, b)
		} else {
			notCompiled++
		}
	}
	return c, breaks, notCompiled, nil
}

// check type-checks dir's package with files (by path from the root) in place of its own files or
// beside them: its errors and, if asked, the types of its expressions.
func (c *Checker) check(dir string, files map[string][]byte, withTypes bool) (map[exprAt]types.TypeAndValue, []error) {
	p, ok := c.pkgs[dir]
	if !ok {
		return nil, []error{fmt.Errorf("%s: not a loaded package", dir)}
	}
	srcs := map[string]any{} // nil: the file on disk
	for _, name := range p.GoFiles {
		srcs[name] = nil
	}
	for name, src := range files {
		srcs[filepath.Join(c.root, filepath.FromSlash(name))] = src
	}
	fset, parsed := token.NewFileSet(), make([]*ast.File, 0, len(srcs))
	for _, name := range slices.Sorted(maps.Keys(srcs)) {
		f, err := parser.ParseFile(fset, name, srcs[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, []error{err}
		}
		parsed = append(parsed, f)
	}
	var errs []error
	conf := types.Config{Error: func(err error) { errs = append(errs, err) }, Importer: c}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	_, _ = conf.Check(p.PkgPath, fset, parsed, info)
	if !withTypes {
		return nil, errs
	}
	typesAt := make(map[exprAt]types.TypeAndValue, len(info.Types))
	for e, tv := range info.Types {
		typesAt[exprAt{c.rel(fset.Position(e.Pos()).Filename), fset.Position(e.Pos()).Offset, fset.Position(e.End()).Offset}] = tv
	}
	return typesAt, errs
}

func (c *Checker) rel(file string) string {
	rel, _ := filepath.Rel(c.root, file)
	return filepath.ToSlash(rel)
}

// exprAt is where an expression is: its file, relative to the root, and offsets.
type exprAt struct {
	file     string
	from, to int
}

// Import is the loaded package of path: the Checker is the type checker's types.Importer.
func (c *Checker) Import(path string) (*types.Package, error) {
	if p := c.imports[path]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("%s is not imported", path)
}
