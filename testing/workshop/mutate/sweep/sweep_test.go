package sweep

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"example.com/operator-demo/testing/workshop/repo"
)

// source is a small file with one of each thing the sweep breaks, and things it must leave alone
// (an import path, a struct tag, a declaration).
const source = `package p

import "errors"

type T struct {
	A int ` + "`json:\"a\"`" + `
}

const limit = 3

func f(n int, ok bool) (T, error) {
	t := T{A: n}
	if n > limit && ok {
		return t, errors.New("too many")
	}
	n++
	check := func() error { return errors.New("no") }
	_ = check
	return t, nil
}
`

// breaksOfSource is every break of source, written as p.go.
func breaksOfSource(t *testing.T) []Break {
	t.Helper()
	root := t.TempDir()
	write(t, root, map[string]string{"p.go": source})
	breaks, err := Of(root, "p.go")
	if err != nil {
		t.Fatal(err)
	}
	return breaks
}

// TestEachOperatorBreaksWhatItSays: the breaks of source, each as the file it makes.
func TestEachOperatorBreaksWhatItSays(t *testing.T) {
	breaks := breaksOfSource(t)
	got := map[string]string{}
	for _, b := range breaks {
		got[b.Operator+": "+b.Was+" → "+b.Now] = string(b.Content)
	}
	for _, want := range []struct{ name, contains string }{
		{"constant: 3 → 0", "const limit = 0\n"},
		{"delete: A: n → ", "t := T{}\n"},
		{"negate: n > limit && ok → !(n > limit && ok)", "if !(n > limit && ok) {"},
		{"negate: n > limit && ok → ||", "if n > limit || ok {"},
		{"drop error: errors.New(\"too many\") → nil", "return t, nil\n\t}"},
		{"constant: \"too many\" → \"\"", `errors.New("")`},
		{"delete: n++ → ", "\t\n\tcheck :="},
		{"delete: if n > limit && ok { return t, errors.New(\"too many\") } → ", "\t\n\tn++"},
		// A function literal's own results count: it returns an error too.
		{"drop error: errors.New(\"no\") → nil", "func() error { return nil }"},
	} {
		content, ok := got[want.name]
		if !ok {
			t.Errorf("no break %q among %d", want.name, len(got))
			continue
		}
		if !strings.Contains(content, want.contains) {
			t.Errorf("break %q makes\n%s\nwant it to contain %q", want.name, content, want.contains)
		}
	}
	for name := range got {
		if strings.Contains(name, `"errors"`) || strings.Contains(name, "json") || strings.Contains(name, "t := T") {
			t.Errorf("break %q: an import path, a struct tag or a declaration is not logic", name)
		}
	}
}

// TestABreakSpansTheLinesItReplaces: a break runs from the line where what it replaces starts to
// the line where it ends, so that a change to any of them picks it (make mutate-sweep BASE=).
func TestABreakSpansTheLinesItReplaces(t *testing.T) {
	breaks := breaksOfSource(t)
	spans := map[string][2]int{}
	for _, b := range breaks {
		spans[b.Operator+": "+b.Was] = [2]int{b.Line, b.Last}
	}
	for name, want := range map[string][2]int{
		"constant: 3": {9, 9},
		"delete: if n > limit && ok { return t, errors.New(\"too many\") }": {13, 15},
		"negate: n > limit && ok": {13, 13},
	} {
		if got, ok := spans[name]; !ok || got != want {
			t.Errorf("break %q spans lines %v, want %v", name, got, want)
		}
	}
}

// TestTheLastFieldGoesWithItsComma: deleting the last field of a literal written one field a
// line leaves no comma behind, so the break still parses.
func TestTheLastFieldGoesWithItsComma(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"p.go": "package p\n\nvar v = map[string]int{\n\t\"a\": 1,\n\t\"b\": 2,\n}\n"})
	breaks, err := Of(root, "p.go")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(breaks, func(b Break) bool { return b.Operator == Delete && b.Was == `"b": 2` })
	if i < 0 {
		t.Fatalf("no break deletes the last field: %+v", breaks)
	}
	if want := "package p\n\nvar v = map[string]int{\n\t\"a\": 1,\n\t\n}\n"; string(breaks[i].Content) != want {
		t.Errorf("deleting the last field makes %q, want %q", breaks[i].Content, want)
	}
}

// TestABreakThatDoesNotCompileIsToldApart: the checker type-checks a break's package in memory:
// a value left unused does not compile, a replaced constant does.
func TestABreakThatDoesNotCompileIsToldApart(t *testing.T) {
	_, _, breaks, notCompiled := compiling(t, map[string]string{
		"p/p.go":  source,
		"p/q.go":  "package p\n\nfunc g() int { return limit }\n",
		"p/p2.go": "package p\n",
	})
	compiles := map[string]bool{}
	for _, b := range breaks {
		compiles[b.File+" "+b.Operator+": "+b.Was] = true
	}
	if !compiles["p/p.go constant: 3"] {
		t.Error("replacing a constant does not compile, by the checker")
	}
	if compiles["p/p.go delete: _ = check"] || notCompiled == 0 {
		t.Errorf("deleting the one use of check compiles, by the checker; %d breaks do not compile", notCompiled)
	}
}

// compiling is a module of files (its go.mod added, under the root it returns), the checker of
// its package p, the breaks of p that compile, and how many do not.
func compiling(t *testing.T, files map[string]string) (string, *Checker, []Break, int) {
	t.Helper()
	root := t.TempDir()
	write(t, root, files)
	write(t, root, map[string]string{"go.mod": "module example.com/p\n\ngo 1.26\n"})
	c, breaks, notCompiled, err := Compiling(root, []string{"p"}, func(Break) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	return root, c, breaks, notCompiled
}

// TestNothingIsLoadedWhenNoBreakIsKept: the breaks are chosen from the parsed files before any
// package is loaded or type-checked, so a choice of none costs no build, even of a package that
// would not load.
func TestNothingIsLoadedWhenNoBreakIsKept(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"go.mod": "module example.com/p\n\ngo 1.26\n",
		"p/p.go": "package p\n\nimport \"example.com/p/missing\"\n\nvar V = missing.V + 1\n",
	})
	kept := 0
	_, breaks, notCompiled, err := Compiling(root, []string{"p"}, func(Break) bool { kept++; return false })
	if err != nil || len(breaks)+notCompiled > 0 {
		t.Errorf("no break kept: %d breaks, %d not compiling, %v; want none, and no load", len(breaks), notCompiled, err)
	}
	if kept == 0 {
		t.Error("no break was offered to keep")
	}
}

// TestEveryEquivalentBreakStillExists: each break listed as equivalent is still one the sweep
// makes of the operator or of the harness a team imports as they are, so the list follows the code
// (as the mutants do). This is what finds a stale entry: the sweep itself does not.
func TestEveryEquivalentBreakStillExists(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	restore, err := repo.Workspace(t.TempDir(), root, filepath.Join(root, "testing")) // the harness's module
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	_, breaks, _, err := Compiling(root, append([]string{"controllers", "api/v1alpha1", "api/v1beta1", "api/conditions"}, repo.Harness...), func(Break) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, b := range breaks {
		ids[b.ID()] = true
	}
	for id := range Equivalent {
		if !ids[id] {
			t.Errorf("no break of the operator or the harness is %q any more: take it off the list", id)
		}
	}
}
