package repo

import (
	"slices"
	"testing"
)

func TestBlock(t *testing.T) {
	md := []byte("text\n```copy\n  a/b\n\nc\n```\n```rename\nx\n```\n")
	if got := Block(md, "copy"); !slices.Equal(got, []string{"a/b", "c"}) {
		t.Errorf("copy: %q", got)
	}
	if got := Block(md, "other"); got != nil {
		t.Errorf("other: %q", got)
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
