// Package repo finds the repository that the workshop's tools work on: the one around the
// workshop's own module.
package repo

import (
	"path/filepath"

	"example.com/operator-demo/testing/harness/controlplane"
)

// Root is the repository root, whether a tool runs there or a test runs in its package
// directory: the nearest directory above the working directory that holds the operator's API
// (api/), which the workshop's own module does not.
func Root() (string, error) {
	dir, err := controlplane.Find("api")
	return filepath.Dir(dir), err
}
