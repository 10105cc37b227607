package main

import (
	"slices"
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
	all := []mutants.Mutant{
		{Break: "one", Scenario: "create"},
		{Break: "two", Scenario: "update"},
		{Break: "three", Scenario: "gc"},
	}
	spans := map[string][]mutants.Span{
		"one":   {{File: "c.go", First: 5, Last: 5}},
		"two":   {{File: "c.go", First: 20, Last: 22}},
		"three": {{File: "d.go", First: 20, Last: 20}},
	}
	touched := map[string][]lineRange{"c.go": {{22, 30}}}
	got, err := choose(all, "create", "", func(m mutants.Mutant) []mutants.Span { return spans[m.Break] }, touched)
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
}
