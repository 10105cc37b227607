// Package repo finds the repository that the workshop's tools work on, the one around the
// workshop's own module, and reads what its docs list for them.
package repo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Root is the repository root, whether a tool runs there or a test runs in its package
// directory: the top of git's work tree around the working directory.
func Root() (string, error) {
	return Git("", "rev-parse", "--show-toplevel")
}

// Block is what the first fenced block of kind (```kind) of the Markdown file at path lists:
// paths, one a line. No such block, or one that lists nothing, is an error.
func Block(path, kind string) ([]string, error) {
	markdown, err := os.ReadFile(path)
	_, rest, _ := strings.Cut(string(markdown), "```"+kind+"\n")
	body, _, _ := strings.Cut(rest, "```")
	if listed := strings.Fields(body); err != nil || len(listed) > 0 {
		return listed, err
	}
	return nil, fmt.Errorf("%s: no %s block that lists anything", path, kind)
}

// Copied are the harness's packages a team copies, as testing/README.md lists them under root.
func Copied(root string) ([]string, error) {
	return Block(filepath.Join(root, "testing", "README.md"), "copy")
}

// Git runs git with args in dir: its output, trimmed, or an error that quotes what git said.
func Git(dir string, args ...string) (string, error) {
	var stderr strings.Builder
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stderr = dir, &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// Workspace makes go, in this process and every go command it starts, work on modules as one (a
// workspace: GOWORK, the go.work that go work init writes into dir), so that go names the packages
// of a module below the repository's root from the root. restore sets GOWORK back.
func Workspace(dir string, modules ...string) (restore func(), err error) {
	cmd := exec.Command("go", append([]string{"work", "init"}, modules...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go work init %s: %w: %s", strings.Join(modules, " "), err, out)
	}
	previous, had := os.LookupEnv("GOWORK")
	if err := os.Setenv("GOWORK", filepath.Join(dir, "go.work")); err != nil {
		return nil, err
	}
	return func() {
		if had {
			_ = os.Setenv("GOWORK", previous)
		} else {
			_ = os.Unsetenv("GOWORK")
		}
	}, nil
}
