package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"example.com/operator-demo/testing/workshop/repo"
)

// TestTheREADMEListsWhatCompilesOnItsOwn: every directory testing/README.md says to copy is a
// package of the harness, and the copied packages import, of this module, only one another: the
// copy list is closed, so a team that copies it has every import it needs.
func TestTheREADMEListsWhatCompilesOnItsOwn(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	copies, err := repo.Copied(root)
	renames, renameErr := repo.Block(filepath.Join(root, "testing", "README.md"), "rename")
	if err != nil || renameErr != nil || !slices.Equal(renames, []string{"example.com/operator-demo"}) {
		t.Fatalf("copy block %q (%v), rename block %q (%v)", copies, err, renames, renameErr)
	}
	for _, dir := range copies {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Errorf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			content, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(content), "\n") {
				_, imported, found := strings.Cut(line, `"example.com/operator-demo/`)
				if !found {
					continue
				}
				pkg, _, _ := strings.Cut(imported, `"`)
				if !slices.Contains(copies, pkg) {
					t.Errorf("%s imports %s, which the copy list leaves out", f, pkg)
				}
			}
		}
	}
}

// TestEachBugBreaksOneLineOfTestdata: each bug's line is in testdata's file once, and a scenario
// of its label is there to catch it, so make test-harness-copy never fails for a table out of date.
func TestEachBugBreaksOneLineOfTestdata(t *testing.T) {
	for _, b := range bugs {
		code, err := os.ReadFile(filepath.Join("testdata", b.file))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(code), b.unbroken); n != 1 || b.broken == b.unbroken {
			t.Errorf("%s: %s holds %q %d times (want once), broken to %q", b.what, b.file, b.unbroken, n, b.broken)
		}
		scenarios, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(scenarios, func(path string) bool {
			content, err := os.ReadFile(path)
			return err == nil && strings.Contains(string(content), `Label("`+b.label+`")`)
		}) {
			t.Errorf("%s: no scenario of label %s", b.what, b.label)
		}
	}
}
