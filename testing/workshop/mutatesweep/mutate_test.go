package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"example.com/operator-demo/testing/workshop/mutate/mutants"
)

func TestChangedLinesAreTheNewSideOfEachHunk(t *testing.T) {
	diff := `diff --git a/controllers/a.go b/controllers/a.go
--- a/controllers/a.go
+++ b/controllers/a.go
@@ -10,2 +10,3 @@ func f() {
@@ -40 +41 @@ func g() {
@@ -60,3 +61,0 @@ func h() { (deleted after new line 61)
diff --git a/controllers/b.go b/controllers/b.go
--- a/controllers/b.go
+++ b/controllers/b.go
@@ -1 +1 @@
diff --git a/controllers/c.go b/controllers/c.go
deleted file mode 100644
--- a/controllers/c.go
+++ /dev/null
@@ -1,9 +0,0 @@ (a deleted file: none of b.go's lines)
`
	got := changedLines(diff)
	want := map[string][]lineRange{
		"controllers/a.go": {{10, 12}, {41, 41}, {61, 62}},
		"controllers/b.go": {{1, 1}},
	}
	for file, ranges := range want {
		if !slices.Equal(got[file], ranges) {
			t.Errorf("%s: %v, want %v", file, got[file], ranges)
		}
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %v", got, want)
	}
}

func TestChooseAddsTheBreaksWhoseLinesTheChangeTouched(t *testing.T) {
	root := t.TempDir()
	lines := make([]string, 30)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	for _, file := range []string{"c.go", "d.go"} {
		if err := os.WriteFile(filepath.Join(root, file), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all := []mutants.Mutant{
		{Break: "one", Scenario: "create", Edits: []mutants.Edit{{File: "c.go", From: "line 5", To: "x"}}},
		{Break: "two", Scenario: "update", Edits: []mutants.Edit{{File: "c.go", From: "line 20\nline 21\nline 22", To: "x"}}},
		{Break: "three", Scenario: "gc", Edits: []mutants.Edit{{File: "d.go", From: "line 20", To: "x"}}},
	}
	touched := map[string][]lineRange{"c.go": {{22, 30}}}
	got, err := choose(root, all, "create", "", touched)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(got))
	for _, m := range got {
		names = append(names, m.Break)
	}
	if want := []string{"one", "two"}; !slices.Equal(names, want) {
		t.Errorf("chosen %v, want %v: the scenario's break and the one whose lines the change touched", names, want)
	}
	all[2].Edits[0].From = "line 31"
	if _, err := choose(root, all, "create", "", touched); err == nil || !strings.Contains(err.Error(), "line 31") {
		t.Errorf("a mutant whose edit no longer finds its lines: %v, want an error naming them", err)
	}
}
