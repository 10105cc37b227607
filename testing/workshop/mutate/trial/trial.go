// Package trial builds the operator's tests with a break overlaid, runs them, and says what failed.
package trial

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"example.com/operator-demo/testing/workshop/specreport"
)

// Outside says what a failure outside every test (a suite setup, an early panic) makes of a run.
type Outside bool

// The policies: what whoever asks makes of such a failure.
const (
	ProvesNothing Outside = false // an error: make mutate asks whether a scenario caught its break
	Notices       Outside = true  // a kill: make mutate-sweep asks whether any test noticed it
)

// Timeout bounds each run of tests against a break. A run takes seconds, and a failing one waits at
// most an Eventually's timeout of the harness (Collect, 30 s) per step; a break that makes a test
// wait for what never comes (a loop that never ends, a channel never closed) would otherwise hold
// the run, and the sweep, until someone kills it. A run that times out noticed its break: a hang
// is a failure, told apart as one (Verdict.TimedOut).
const Timeout = 2 * time.Minute

// Verdict is what a run said: how many tests or specs ran (Ran: neither left out by a filter nor
// pending), the first that failed, and where (step and line); TimedOut, that it failed by running
// past the run's timeout.
type Verdict struct {
	Ran              int
	Failed, TimedOut bool
	Test, Where      string
}

func (v Verdict) String() string {
	if v.Failed {
		return fmt.Sprintf("failed: %s, at %s", v.Test, v.Where)
	}
	return "**passed**"
}

// Build builds pkgs' test binaries into dir with overlay (a file's absolute path under root → its
// content), the tree untouched (go test -overlay): no debug information (a third of the link time),
// no vet (which a broken format string would fail). The contents are written into dir, not named
// .go: dir may sit inside the module, where ./... would take them for a package. What is not Go (a
// manifest, say), which a build cannot overlay, Build writes into dir at its path under root, for
// Scenarios to read there.
func Build(root, dir string, overlay map[string]string, pkgs ...string) ([]byte, error) {
	file, err := writeOverlay(root, dir, overlay)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", append([]string{"test", "-c", "-o", dir + string(filepath.Separator), "-vet=off", "-ldflags=-s -w", "-overlay=" + file}, pkgs...)...)
	cmd.Dir = root
	return cmd.CombinedOutput()
}

// BuildCommand builds the command pkg into dir with overlay, as Build builds tests: the operator's
// manager, for a scenario that runs it as a process. Its binary is dir/name.
func BuildCommand(root, dir string, overlay map[string]string, pkg, name string) ([]byte, error) {
	file, err := writeOverlay(root, dir, overlay)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "-ldflags=-s -w", "-overlay="+file, pkg)
	cmd.Dir = root
	return cmd.CombinedOutput()
}

// writeOverlay writes overlay's Go files into dir for go's -overlay, and the specification that
// names them, whose path it returns. The rest it writes into dir at their paths under root, and
// makes dir's scenarios directory, from which Scenarios then runs the scenarios.
func writeOverlay(root, dir string, overlay map[string]string) (string, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	replace, file := map[string]string{}, filepath.Join(dir, "overlay.json")
	for i, path := range slices.Sorted(maps.Keys(overlay)) {
		at := filepath.Join(dir, strconv.Itoa(i)+".edited")
		if filepath.Ext(path) == ".go" {
			replace[path] = at
		} else {
			abs, _ := filepath.Abs(path) // its error is Getwd's, which absRoot's already ruled out
			rel, err := filepath.Rel(absRoot, abs)
			if err != nil || !filepath.IsLocal(rel) {
				return "", fmt.Errorf("%s is not under %s, where the scenarios would read it", path, absRoot)
			}
			at = filepath.Join(dir, rel)
			for _, d := range []string{filepath.Dir(at), filepath.Join(dir, "scenarios")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return "", err
				}
			}
		}
		if err := os.WriteFile(at, []byte(overlay[path]), 0o644); err != nil {
			return "", err
		}
	}
	spec, _ := json.Marshal(map[string]any{"Replace": replace}) // of strings: it cannot fail
	return file, os.WriteFile(file, spec, 0o644)
}

// Binary is the test binary that Build built of pkg into dir.
func Binary(dir, pkg string) string { return filepath.Join(dir, path.Base(pkg)+".test") }

// Unit runs pkg's test binary in dir with env added: the tests named (all if none) to a failure,
// within timeout (Timeout, but in this package's tests).
func Unit(root, dir, pkg string, env, tests []string, outside Outside, timeout time.Duration) (Verdict, error) {
	args := []string{"tool", "test2json", "-p", pkg, Binary(dir, pkg), "-test.v=test2json", "-test.count=1", "-test.failfast", "-test.timeout=" + timeout.String()}
	if len(tests) > 0 {
		args = append(args, "-test.run=^"+specreport.AnyOf(tests)+"$")
	}
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = filepath.Join(root, pkg), append(os.Environ(), env...)
	defer ownSession(cmd)()
	out, err := cmd.Output()
	suite, _, readErr := specreport.GoTest(out)
	return judge(suite, err, readErr, out, outside, "the unit test binary")
}

// Scenarios runs the scenario binary in dir with env and flags, judged by its report dir/name.json,
// within timeout. It runs in root's scenarios directory, or in dir's where Build wrote files that
// are not Go into dir: the harness reads a file of the repository in the working directory or the
// nearest above it that holds it (controlplane.Find), so in a dir inside root the files written
// there stand in for root's, and root serves the rest.
func Scenarios(root, dir, name string, env []string, outside Outside, timeout time.Duration, flags ...string) (Verdict, error) {
	// Ginkgo's timeout, not go's: Ginkgo ends the spec that hangs, leaves its goroutine behind, and
	// writes the report.
	cmd := exec.Command(Binary(dir, "scenarios"), append([]string{"-ginkgo.timeout=" + timeout.String(), "-ginkgo.fail-fast"}, flags...)...)
	cmd.Dir, cmd.Env = filepath.Join(root, "scenarios"), append(os.Environ(), env...)
	if _, err := os.Stat(filepath.Join(dir, "scenarios")); err == nil {
		cmd.Dir = filepath.Join(dir, "scenarios")
	}
	defer ownSession(cmd)()
	suite, out, err, readErr := specreport.Run(cmd, filepath.Join(dir, name+".json"), root)
	return judge(suite, err, readErr, out, outside, "the scenario binary")
}

// judge is the verdict on a run (that failed if runErr, with its output out) as its report says,
// if it could be read (readErr).
func judge(report specreport.Suite, runErr, readErr error, out []byte, outside Outside, binary string) (Verdict, error) {
	ran := len(slices.DeleteFunc(slices.Clone(report.Specs), func(r specreport.Result) bool { return r.Skipped }))
	switch {
	case runErr == nil && readErr != nil:
		return Verdict{}, fmt.Errorf("%s passed without a report of what ran: %w", binary, readErr)
	case runErr == nil:
		return Verdict{Ran: ran}, nil
	case readErr != nil:
		runErr = fmt.Errorf("%w, and no report (%w)", runErr, readErr)
	}
	f, found := report.FirstFailure()
	if found && (f.InSpec || outside == Notices) {
		return Verdict{Ran: ran, Failed: true, TimedOut: f.TimedOut, Test: f.Name, Where: f.Where()}, nil
	} else if found {
		return Verdict{}, fmt.Errorf("%s failed outside any spec, which proves nothing: %s", f.Name, f.Where())
	}
	if _, message, panicked := strings.Cut(string(out), "panic:"); panicked && outside == Notices {
		message = specreport.Gist("panic:" + message)
		return Verdict{Failed: true, TimedOut: strings.HasPrefix(message, specreport.GoTimeout), Test: binary, Where: "panics before any test: " + message}, nil
	}
	return Verdict{}, fmt.Errorf("%w, with no failed test in the report:\n%s", runErr, out)
}
