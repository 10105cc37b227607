package sweep

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"

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
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedTypes | packages.NeedModule, Dir: root}, patterns...)
	if err != nil {
		return nil, err
	}
	c := &Checker{root: root, pkgs: map[string]*packages.Package{}}
	for _, p := range pkgs {
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

// Compiles returns nil if the package of b's file, with b made, type-checks; else the first error.
func (c *Checker) Compiles(b Break) error {
	p, ok := c.pkgs[filepath.ToSlash(filepath.Dir(filepath.FromSlash(b.File)))]
	if !ok {
		return fmt.Errorf("%s: not in a loaded package", b.File)
	}
	fset := token.NewFileSet()
	files := make([]*ast.File, 0, len(p.GoFiles))
	for _, path := range p.GoFiles {
		var src any
		if rel, err := filepath.Rel(c.root, path); err == nil && filepath.ToSlash(rel) == b.File {
			src = b.Content
		} else if src, err = os.ReadFile(path); err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importerFunc(func(path string) (*types.Package, error) {
		if imp, ok := p.Imports[path]; ok && imp.Types != nil {
			return imp.Types, nil
		}
		return nil, fmt.Errorf("%s is not imported by %s", path, p.PkgPath)
	})}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	_, err := conf.Check(p.PkgPath, fset, files, nil)
	return err
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
