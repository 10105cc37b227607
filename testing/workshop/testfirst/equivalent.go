package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"example.com/operator-demo/testing/workshop/specsource"
)

const (
	// equivalentFile holds the sweep's equivalence list: a break listed there survives unscored.
	equivalentFile = "testing/workshop/mutate/sweep/equivalent.go"
	// EquivalentTrailer, in a commit of the change, names the ID of a break it adds to the list; the
	// report quotes the commit's subject.
	EquivalentTrailer = "Equivalent"
)

// equivalent is an entry of the equivalence list, and the commit stating it.
type equivalent struct{ id, reason, statement string }

// equivalents are the entries of the equivalence list in tree, reason by ID: none if it has no list.
// Each ID and reason must be a string literal, or a sum of them, for the entries to be told apart.
func equivalents(tree string) (map[string]string, error) {
	f, err := specsource.Parse(filepath.Join(tree, filepath.FromSlash(equivalentFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	} else if err != nil {
		return nil, err
	}
	out := map[string]string{}
	ast.Inspect(f.File, func(n ast.Node) bool {
		v, ok := n.(*ast.ValueSpec)
		if !ok || len(v.Names) != 1 || v.Names[0].Name != "Equivalent" || len(v.Values) != 1 {
			return err == nil
		}
		at := func(n ast.Node) string { return fmt.Sprintf("%s:%d", equivalentFile, f.Fset.Position(n.Pos()).Line) }
		list, isList := v.Values[0].(*ast.CompositeLit)
		if !isList {
			err = fmt.Errorf("%s: Equivalent is not a map literal: test-first cannot tell its new entries", at(v))
			return false
		}
		for _, elt := range list.Elts {
			id, reason, ok := entry(elt)
			if !ok {
				err = fmt.Errorf("%s: an entry of Equivalent that is not a string literal: test-first cannot tell whether it is new", at(elt))
				return false
			}
			out[id] = reason
		}
		return false
	})
	return out, err
}

// entry is an element of a map literal as an ID and a reason, and whether both are string literals.
func entry(elt ast.Expr) (id, reason string, ok bool) {
	kv, isKV := elt.(*ast.KeyValueExpr)
	if !isKV {
		return "", "", false
	}
	id, idOK := literal(kv.Key)
	reason, reasonOK := literal(kv.Value)
	return id, reason, idOK && reasonOK
}

// literal is the string that e spells out in literals ("a" + `b`), and whether it does.
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		return s, e.Kind == token.STRING && err == nil
	case *ast.BinaryExpr:
		x, xOK := literal(e.X)
		y, yOK := literal(e.Y)
		return x + y, e.Op == token.ADD && xOK && yOK
	case *ast.ParenExpr:
		return literal(e.X)
	}
	return "", false
}

// newEquivalents are the entries of head that base lacks, by ID, in the order of their IDs.
func newEquivalents(base, head map[string]string) []equivalent {
	var out []equivalent
	for id, reason := range head {
		if _, listed := base[id]; !listed {
			out = append(out, equivalent{id: id, reason: reason})
		}
	}
	slices.SortFunc(out, func(a, b equivalent) int { return strings.Compare(a.id, b.id) })
	return out
}

// applyEquivalents marks each new entry a trailer of log (as check.trailers formats it) names; the
// trailers naming none mislead, so fail.
func applyEquivalents(entries []equivalent, log string) (stale []string) {
	for statement, id := range statements(log) {
		// git trims a trailer's value, and a deletion's ID ends in a space.
		i := slices.IndexFunc(entries, func(e equivalent) bool { return strings.TrimSpace(e.id) == id })
		if i < 0 {
			stale = append(stale, fmt.Sprintf("%s states %q equivalent, which this change does not add to %s (%s: takes the break's ID as the list has it)",
				statement, id, equivalentFile, EquivalentTrailer))
			continue
		}
		entries[i].statement = statement
	}
	return stale
}
