package repo

import (
	"fmt"
	"os"
	"os/exec"
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

// TestWorkspaceNamesAModuleBelowRootFromRoot: the harness is a module of its own (testing/); in a
// workspace of it, go names its packages from the repository's root, and only there.
func TestWorkspaceNamesAModuleBelowRootFromRoot(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	list := func() error {
		out, err := exec.Command("go", "list", "-C", root, "./testing/harness/poll").CombinedOutput()
		if err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
		return nil
	}
	if list() == nil {
		t.Fatal("go lists ./testing/harness/poll from the root without a workspace: the harness is not a module of its own")
	}
	restore, err := Workspace(t.TempDir(), filepath.Join(root, "testing"))
	if err != nil {
		t.Fatal(err)
	}
	if err := list(); err != nil {
		t.Errorf("in the workspace, go list ./testing/harness/poll from the root: %v", err)
	}
	restore()
	if list() == nil {
		t.Error("after restore, go still lists ./testing/harness/poll from the root: GOWORK was left set")
	}
}
