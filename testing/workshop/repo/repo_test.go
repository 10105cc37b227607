package repo

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.md")
	if err := os.WriteFile(path, []byte("text\n```copy\n  a/b\n\nc\n```\n```rename\nx\n```\n```empty\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Block(path, "copy"); err != nil || !slices.Equal(got, []string{"a/b", "c"}) {
		t.Errorf("copy: %q, %v", got, err)
	}
	for _, kind := range []string{"other", "empty"} {
		if got, err := Block(path, kind); err == nil {
			t.Errorf("%s: %q, and no error", kind, got)
		}
	}
}

// TestCopiedIsTheREADMEsList: the harness a team copies, as testing/README.md lists it.
func TestCopiedIsTheREADMEsList(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	copied, err := Copied(root)
	if err != nil || !slices.Contains(copied, "testing/harness") {
		t.Errorf("Copied = %q, %v; want a list with testing/harness", copied, err)
	}
}
