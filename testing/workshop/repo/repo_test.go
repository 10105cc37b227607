package repo

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestHarnessIsPackagesOfTheHarnessModule: each of Harness is a package of the harness's module,
// testing/, with Go files of its own; testing/harness, the suite, among them.
func TestHarnessIsPackagesOfTheHarnessModule(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(Harness, "testing/harness") {
		t.Errorf("Harness = %q; want a list with testing/harness", Harness)
	}
	for _, dir := range Harness {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if rel, _ := filepath.Rel("testing", dir); err != nil || len(files) == 0 || !filepath.IsLocal(rel) {
			t.Errorf("%s: no package of the harness's module, testing/ (%d Go files, %v)", dir, len(files), err)
		}
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
