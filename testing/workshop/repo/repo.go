// Package repo finds the repository that the workshop's tools work on: the one around the
// workshop's own module.
package repo

import (
	"path/filepath"

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
