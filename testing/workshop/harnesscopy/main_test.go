package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTheREADMEListsWhatCompilesOnItsOwn: every directory testing/README.md says to copy is a
// package of the harness, and the copied packages import, of this module, only one another: the
// copy list is closed, so a team that copies it has every import it needs.
func TestTheREADMEListsWhatCompilesOnItsOwn(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "testing", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	copies, renames := Block(readme, "copy"), Block(readme, "rename")
	if len(copies) == 0 || !slices.Equal(renames, []string{"example.com/operator-demo"}) {
		t.Fatalf("copy block %q, rename block %q", copies, renames)
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

func TestBlock(t *testing.T) {
	md := []byte("text\n```copy\n  a/b\n\nc\n```\n```rename\nx\n```\n")
	if got := Block(md, "copy"); !slices.Equal(got, []string{"a/b", "c"}) {
		t.Errorf("copy: %q", got)
	}
	if got := Block(md, "other"); got != nil {
		t.Errorf("other: %q", got)
	}
}
