package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTestdataImportsTheHarnessByItsModulePath: the project's scenarios import the harness from the
// module it requires, never from a copy under the project's own path.
func TestTestdataImportsTheHarnessByItsModulePath(t *testing.T) {
	imports := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".go" {
			return err
		}
		content, err := os.ReadFile(path)
		for _, line := range strings.Split(string(content), "\n") {
			if _, imported, found := strings.Cut(line, `/testing/harness`); found {
				imports++
				if !strings.Contains(line, `"`+harnessModule+`/harness`) {
					t.Errorf("%s imports the harness%s not from %s", path, imported, harnessModule)
				}
			}
		}
		return err
	})
	if err != nil || imports == 0 {
		t.Errorf("testdata's scenarios: %d imports of the harness, %v", imports, err)
	}
}

// TestEachBugBreaksOneLineOfTestdata: each bug's line is in testdata's file once, and a scenario
// of its label is there to catch it, so make test-adopter never fails for a table out of date.
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
