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

// Harness is the packages of the harness that a team imports (testing/README.md, "The harness"),
// each a directory under the root: what make mutate-sweep HARNESS=1 breaks, judged by
// their own tests.
var Harness = []string{
	"testing/harness/poll",
	"testing/harness/cachelag",
	"testing/harness/controlplane",
	"testing/harness/operator",
	"testing/harness/cluster",
	"testing/harness",
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
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOWORK=off") // into dir, whatever GOWORK says now
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
