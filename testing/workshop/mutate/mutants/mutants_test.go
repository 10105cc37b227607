package mutants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryMutantStillApplies: each edit still finds its text, once, in the controller as it is
// now, so `make mutate` breaks what it says it breaks. It fails in make test, before make mutate.
func TestEveryMutantStillApplies(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	for _, m := range All {
		mutated, err := m.Apply(root)
		if err != nil {
			t.Errorf("mutant %q: %v", m.Break, err)
			continue
		}
		if len(mutated) == 0 {
			t.Errorf("mutant %q changes nothing", m.Break)
		}
	}
}

// TestAnEditMatchesWholeLinesOnly: a new line that begins with an edit's text does not capture
// the edit, which would leave the break breaking nothing; indentation does not count, and a line
// there twice is an error.
func TestAnEditMatchesWholeLinesOnly(t *testing.T) {
	root := t.TempDir()
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, "c.go"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, file := Mutant{Break: "b", Edits: []Edit{{"c.go", "return merged, changed", "return merged, true"}}}, filepath.Join(root, "c.go")

	write("func f() {\n\treturn merged, changed || annotated\n}\n")
	if _, err := m.Apply(root); err == nil || !strings.Contains(err.Error(), "0 times") {
		t.Errorf("an edit whose text only begins a line: err = %v, want it found 0 times", err)
	}

	write("func f() {\n\treturn merged, changed || annotated\n\treturn merged, changed\n}\n")
	mutated, err := m.Apply(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := "func f() {\n\treturn merged, changed || annotated\n\treturn merged, true\n}\n"; mutated[file] != want {
		t.Errorf("mutated:\n%s\nwant:\n%s", mutated[file], want)
	}

	write("func f() {\n\treturn merged, changed\n\tif x {\n\t\treturn merged, changed\n\t}\n}\n")
	if _, err := m.Apply(root); err == nil || !strings.Contains(err.Error(), "2 times") {
		t.Errorf("an edit whose line is there twice: err = %v, want it found 2 times", err)
	}
}
