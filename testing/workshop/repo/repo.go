// Package repo finds the repository that the workshop's tools work on, the one around the
// workshop's own module, and reads what its docs list for them.
package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"example.com/operator-demo/testing/harness/controlplane"
)

// Root is the repository root, whether a tool runs there or a test runs in its package
// directory: the nearest directory above the working directory that holds the operator's API
// (api/), which the workshop's own module does not.
func Root() (string, error) {
	dir, err := controlplane.Find("api")
	return filepath.Dir(dir), err
}

// Block is what the first fenced block of kind (```kind) in markdown lists: paths, one a line.
func Block(markdown []byte, kind string) []string {
	_, rest, found := strings.Cut(string(markdown), "```"+kind+"\n")
	body, _, _ := strings.Cut(rest, "```")
	if !found {
		return nil
	}
	return strings.Fields(body)
}

// Copied are the harness's packages a team copies, as testing/README.md lists them under root.
func Copied(root string) ([]string, error) {
	readme, err := os.ReadFile(filepath.Join(root, "testing", "README.md"))
	if err != nil {
		return nil, err
	}
	copies := Block(readme, "copy")
	if len(copies) == 0 {
		return nil, fmt.Errorf("%s: no copy block", filepath.Join(root, "testing", "README.md"))
	}
	return copies, nil
}
