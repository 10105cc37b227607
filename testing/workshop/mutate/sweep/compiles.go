package sweep

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"slices"

	"golang.org/x/tools/go/packages"
)

// Checker tells which breaks compile, by type-checking the broken file's package in memory
// against its imports' export data: milliseconds a break, where go build takes seconds. About
// half of the generic breaks do not compile (a deleted return, a value left unused) and are never
// built.
type Checker struct {
	root string
	// pkgs is each package by its directory relative to root, with slashes.
	pkgs map[string]*packages.Package
	// std are the packages that the schemata's switch imports.
	std map[string]*types.Package
}

// NewChecker loads the packages of root's dirs.
func NewChecker(root string, dirs ...string) (*Checker, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	patterns := make([]string, len(dirs))
	for i, d := range dirs {
		patterns[i] = "./" + d
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedTypes | packages.NeedModule, Dir: root}, append(patterns, switchImports...)...)
	if err != nil {
		return nil, err
	}
	c := &Checker{root: root, pkgs: map[string]*packages.Package{}, std: map[string]*types.Package{}}
	for _, p := range pkgs {
		if slices.Contains(switchImports, p.PkgPath) {
			c.std[p.PkgPath] = p.Types
			continue
		}
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("load %s: %w", p.PkgPath, p.Errors[0])
		}
		dir, err := filepath.Rel(root, filepath.Dir(p.GoFiles[0]))
		if err != nil {
			return nil, err
		}
		c.pkgs[filepath.ToSlash(dir)] = p
	}
	return c, nil
}

// Compiling makes the breaks of the files under root's dirs that keep keeps and that compile,
// with the Checker that told, and counts those kept that do not compile.
func Compiling(root string, dirs []string, keep func(Break) bool) (c *Checker, breaks []Break, notCompiled int, err error) {
	files, err := Files(root, dirs...)
	if err == nil {
		c, err = NewChecker(root, dirs...)
	}
	for i := 0; err == nil && i < len(files); i++ {
		var all []Break
		all, err = Of(root, files[i])
		for _, b := range all {
			switch {
			case !keep(b):
			case c.Compiles(b) != nil:
				notCompiled++
			default:
				breaks = append(breaks, b)
			}
		}
	}
	return c, breaks, notCompiled, err
}

// Compiles returns nil if the package of b's file, with b made, type-checks; else the first error.
func (c *Checker) Compiles(b Break) error {
	_, errs := c.check(path.Dir(b.File), map[string][]byte{b.File: b.Content}, nil, false)
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// check type-checks the package in dir (relative to the root) with the files of replace (by path
// relative to the root, with slashes) in place of its own, and the files of add added, and
// returns every error and, if asked, the type and value of each expression, by where it is.
func (c *Checker) check(dir string, replace map[string][]byte, add [][]byte, withTypes bool) (map[exprAt]types.TypeAndValue, []error) {
	p, ok := c.pkgs[filepath.ToSlash(dir)]
	if !ok {
		return nil, []error{fmt.Errorf("%s: not a loaded package", dir)}
	}
	fset := token.NewFileSet()
	files, err := c.parse(fset, p, replace, add)
	if err != nil {
		return nil, []error{err}
	}
	var errs []error
	conf := types.Config{Error: func(err error) { errs = append(errs, err) }, Importer: importerFunc(func(path string) (*types.Package, error) {
		if imp, ok := p.Imports[path]; ok && imp.Types != nil {
			return imp.Types, nil
		}
		if imp, ok := c.std[path]; ok {
			return imp, nil
		}
		return nil, fmt.Errorf("%s is not imported by %s", path, p.PkgPath)
	})}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	_, _ = conf.Check(p.PkgPath, fset, files, info)
	if !withTypes {
		return nil, errs
	}
	typesAt := make(map[exprAt]types.TypeAndValue, len(info.Types))
	for e, tv := range info.Types {
		from, to := fset.Position(e.Pos()), fset.Position(e.End())
		if file, err := filepath.Rel(c.root, from.Filename); err == nil {
			typesAt[exprAt{filepath.ToSlash(file), from.Offset, to.Offset}] = tv
		}
	}
	return typesAt, errs
}

// parse parses the files of p, those of replace (by path relative to the root, with slashes) in
// place of its own, and those of add after them.
func (c *Checker) parse(fset *token.FileSet, p *packages.Package, replace map[string][]byte, add [][]byte) ([]*ast.File, error) {
	files := make([]*ast.File, 0, len(p.GoFiles)+len(add))
	for i := range len(p.GoFiles) + len(add) {
		name, src := fmt.Sprintf("added%d.go", i), any(nil)
		if i < len(p.GoFiles) {
			name = p.GoFiles[i]
			if rel, err := filepath.Rel(c.root, name); err == nil && replace[filepath.ToSlash(rel)] != nil {
				src = replace[filepath.ToSlash(rel)]
			}
		} else {
			src = add[i-len(p.GoFiles)]
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// exprAt is where an expression is: its file (relative to the root, with slashes) and its offsets.
type exprAt struct {
	file     string
	from, to int
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
