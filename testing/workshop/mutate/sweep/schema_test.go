package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// program has a break of every operator, constants in a const declaration, one of them a
// duration that needs its type named, and the clauses of a switch; main prints what f and g compute.
const program = `package main

import (
	"errors"
	"fmt"
	"time"
)

type T struct {
	A int
	D time.Duration
}

const (
	limit = 3
	wait  = 2 * time.Second
)

func f(n int, ok bool) (T, error) {
	t := T{A: n, D: wait}
	if n > limit && ok {
		return t, errors.New("too many")
	}
	n++
	t.A = n
	return t, nil
}

func g(n int) string {
	switch {
	case n < 0, n > 9:
		return "out"
	case n == 5:
		return "five"
	default:
		n++
	}
	return fmt.Sprint(n)
}

func main() {
	for _, n := range []int{-1, 1, 5, 10} {
		t, err := f(n, true)
		fmt.Println(t, err, errors.Is(err, nil), g(n))
	}
}
`

// TestEverySwitchedBreakBehavesAsItsOwnBuild: the schemata build every break into one program,
// each behind its switch; run with a break's switch on, that program prints what the break built
// on its own prints, and with none on, what the program prints.
func TestEverySwitchedBreakBehavesAsItsOwnBuild(t *testing.T) {
	root, c, breaks, _ := compiling(t, map[string]string{"p/main.go": program})
	var schemata string
	schema, err := Build(c, breaks, func(overlay map[string]string) ([]byte, error) {
		schemata = build(t, root, overlay)
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	switched := schema.Switched
	if got, want := run(t, schemata, ""), run(t, build(t, root, nil), ""); got != want {
		t.Errorf("no switch on: prints %q, want the program's %q", got, want)
	}
	for i, b := range breaks {
		if !switched[i] {
			continue
		}
		own := build(t, root, map[string]string{filepath.Join(root, "p", "main.go"): string(b.Content)})
		if got, want := run(t, schemata, fmt.Sprint(i+1)), run(t, own, ""); got != want {
			t.Errorf("%s: switched on, prints %q; built on its own, %q", b.ID(), got, want)
		}
	}
	for _, id := range []string{"p/main.go (package) constant: 2 → 0", "p/main.go f negate: n > limit && ok → ||", "p/main.go f drop error: errors.New(\"too many\") → nil", "p/main.go f delete: D: wait → ", `p/main.go g delete: case n < 0, n > 9: return "out" → `, "p/main.go g delete: default: n++ → "} {
		if i := indexOf(breaks, id); i < 0 || !switched[i] {
			t.Errorf("%s is not switched", id)
		}
	}
}

// TestWhatCannotBeSwitchedIsBuiltOnItsOwn: a break the schemata cannot put behind a switch (a
// call left out of a chain changes the chain's type) is left to a build of its own, and the rest
// still compile together.
func TestWhatCannotBeSwitchedIsBuiltOnItsOwn(t *testing.T) {
	breaks, schema := schemataOf(t, "package p\n\ntype B struct{ s string }\n\nfunc (b *B) Add(s string) *B {\n\tb.s += s\n\treturn b\n}\n\nfunc g() string { return new(B).Add(\"x\").Add(\"y\").s }\n")
	switched := schema.Switched
	chained := 0
	for i, b := range breaks {
		isChain := b.Operator == Delete && strings.HasPrefix(b.Was, ".")
		if isChain {
			chained++
		}
		if switched[i] == isChain {
			t.Errorf("%s: switched %v, want %v", b.ID(), switched[i], !isChain)
		}
	}
	if chained != 2 || len(breaks) < 4 {
		t.Errorf("%d breaks, %d of them calls left out of the chain: want both calls and more", len(breaks), chained)
	}
}

// schemataOf is every break of src, the one file of package p, and their schemata, built by no build.
func schemataOf(t *testing.T, src string) ([]Break, Schema) {
	t.Helper()
	_, breaks, schema := schemataOfFiles(t, map[string]string{"p/p.go": src})
	return breaks, schema
}

// schemataOfFiles is every break of package p's files (by path under the module's root, which it
// returns) that compiles, and their schemata, built by no build.
func schemataOfFiles(t *testing.T, files map[string]string) (string, []Break, Schema) {
	t.Helper()
	root, c, breaks, _ := compiling(t, files)
	schema, err := Build(c, breaks, func(map[string]string) ([]byte, error) { return nil, nil })
	if err != nil {
		t.Fatalf("the schemata: %v", err)
	}
	return root, breaks, schema
}

func indexOf(breaks []Break, id string) int {
	for i, b := range breaks {
		if b.ID() == id {
			return i
		}
	}
	return -1
}

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// build builds the program under root/p with the overlay's files, and returns the binary.
func build(t *testing.T, root string, overlay map[string]string) string {
	t.Helper()
	binary := filepath.Join(t.TempDir(), "p")
	cmd := exec.Command("go", "build", "-overlay", overlayFile(t, overlay), "-o", binary, "./p")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return binary
}

// overlayFile is go build's -overlay file for overlay (a file's absolute path → its content).
func overlayFile(t *testing.T, overlay map[string]string) string {
	t.Helper()
	dir, replace := t.TempDir(), map[string]string{}
	for path, content := range overlay {
		replace[path] = filepath.Join(dir, fmt.Sprint(len(replace), ".go"))
		write(t, dir, map[string]string{filepath.Base(replace[path]): content})
	}
	spec, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"overlay.json": string(spec)})
	return filepath.Join(dir, "overlay.json")
}

// run runs the binary with the break numbered id switched on ("" for none).
func run(t *testing.T, binary, id string) string {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), Env+"="+id)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%s (%v)", out, err)
	}
	return string(out)
}

// TestAConstantAnotherPackageNeedsStaysConstant: a constant made a variable that another package
// needs constant fails the build; Build builds again with it constant, and its break on its own.
func TestAConstantAnotherPackageNeedsStaysConstant(t *testing.T) {
	root, c, breaks, _ := compiling(t, map[string]string{
		"p/p.go":  "package p\n\n// Limit is needed constant by q.\nconst Limit = 3\n\n// Wait is not.\nconst Wait = 2\n",
		"q/q.go":  "package q\n\nimport \"example.com/p/p\"\n\nconst twice = p.Limit * 2\n\nvar _ = [twice]int{}\n\nvar _ = p.Wait\n",
		"q/q2.go": "package q\n",
	})
	builds := 0
	schema, err := Build(c, breaks, func(overlay map[string]string) ([]byte, error) {
		builds++
		cmd := exec.Command("go", "build", "-overlay", overlayFile(t, overlay), "./...")
		cmd.Dir = root
		return cmd.CombinedOutput()
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range breaks {
		if want := !strings.Contains(b.Was, "3"); schema.Switched[i] != want {
			t.Errorf("%s: switched %v, want %v", b.ID(), schema.Switched[i], want)
		}
	}
	if builds != 2 || !slices.Equal(schema.Vars, []string{"Wait"}) {
		t.Errorf("%d builds, variables %v: want 2 builds, Wait alone a variable", builds, schema.Vars)
	}
}

// TestWhatDoesNotParseSwitchedIsBuiltOnItsOwn: a break whose switch would not parse (a select's
// case deleted, a map's element of an elided type left out) is built on its own; a constant of a
// type a dot import names is switched, the type named as the file names it.
func TestWhatDoesNotParseSwitchedIsBuiltOnItsOwn(t *testing.T) {
	src := `package p

import . "time"

type C struct{ N int }

const wait = Duration(2)

func f(done chan int) (map[string]C, Duration) {
	select {
	case <-done:
		return map[string]C{"a": {N: 1}}, wait
	default:
		return nil, 0
	}
}
`
	breaks, schema := schemataOf(t, src)
	for id, switched := range map[string]bool{
		"p/p.go f delete: case <-done: return map[string]C{\"a\": {N: 1}}, wait → ": false,
		"p/p.go f delete: \"a\": {N: 1} → ":                                         false,
		"p/p.go (package) constant: 2 → 0":                                          true,
	} {
		if i := indexOf(breaks, id); i < 0 || schema.Switched[i] != switched {
			t.Errorf("%s: found %v, switched %v; want switched %v", id, i >= 0, i >= 0 && schema.Switched[i], switched)
		}
	}
}

// TestAFileWithNoBreakSwitchedIsBuiltAsItIs: a file whose every break is built on its own stays in
// the schemata as it is, while another file's break, that does not parse switched, is taken off.
func TestAFileWithNoBreakSwitchedIsBuiltAsItIs(t *testing.T) {
	chained := "package p\n\nfunc g(s string) *B { return new(B).Add(s).Add(s) }\n"
	root, _, schema := schemataOfFiles(t, map[string]string{
		"p/p.go": "package p\n\ntype C struct{ N int }\n\nvar m = map[string]C{\"a\": {N: 1}}\n\ntype B struct{ s string }\n\nfunc (b *B) Add(s string) *B {\n\tb.s += s\n\treturn b\n}\n",
		"p/q.go": chained,
	})
	if got, ok := schema.Overlay[filepath.Join(root, "p", "q.go")]; ok && got != chained {
		t.Errorf("the file without a switched break is in the schemata as\n%q\nwant it as it is, %q", got, chained)
	}
}
