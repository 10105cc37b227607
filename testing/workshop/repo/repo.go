// Package repo finds the repository that the workshop's tools work on: the one around the
// workshop's own module.
package repo

import (
	"errors"
	"os"
	"path/filepath"
)

// Root is the directory, at or above the working directory, that holds the workshop's module
// (testing/workshop/go.mod): the repository root, whether a tool runs there or a test runs in its
// package directory.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "testing", "workshop", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no testing/workshop/go.mod at or above the working directory")
		}
		dir = parent
	}
}
