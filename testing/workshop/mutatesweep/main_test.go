package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/cover"

	"example.com/operator-demo/testing/workshop/mutate/sweep"
)

// TestALineIsUnreachedOnlyInBlocksThatNoneRan: a break's line counts as reached when a block that
// ran holds it, or when no block holds it (a statement's later lines); unreached only when every
// block that holds it never ran.
func TestALineIsUnreachedOnlyInBlocksThatNoneRan(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "cover.out")
	content := "mode: set\n" +
		"example.com/p/controllers/a.go:10.2,12.3 2 1\n" +
		"example.com/p/controllers/a.go:14.2,16.3 1 0\n"
	if err := os.WriteFile(profile, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := cover.ParseProfiles(profile)
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[int]bool{11: true, 13: true, 15: false, 20: true} {
		if got := reaches(c, sweep.Break{File: "controllers/a.go", Line: line}); got != want {
			t.Errorf("line %d reached: %v, want %v", line, got, want)
		}
	}
	if !reaches(c, sweep.Break{File: "controllers/b.go", Line: 15}) {
		t.Error("a line of a file the profile does not name counts as unreached")
	}
}
