// Package repo finds the repository that the workshop's tools work on (the one around the
// workshop's own module) and a module's path.
package repo

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"

	"example.com/operator-demo/testing/controlplane"
)

// Root is the repository root, whether a tool runs there or a test runs in its package
// directory: the nearest go.mod above the working directory, unless that is the workshop's own
// (testing/workshop/go.mod), whose repository is two directories up.
func Root() (string, error) {
	dir, err := controlplane.RepoRoot()
	if err != nil {
		return "", err
	}
	if filepath.Base(dir) == "workshop" && filepath.Base(filepath.Dir(dir)) == "testing" {
		return filepath.Dir(filepath.Dir(dir)), nil
	}
	return dir, nil
}

// ModulePath is the module path that dir's go.mod declares.
func ModulePath(dir string) (string, error) {
	path := filepath.Join(dir, "go.mod")
	gomod, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if m := modfile.ModulePath(gomod); m != "" {
		return m, nil
	}
	return "", fmt.Errorf("%s names no module", path)
}
