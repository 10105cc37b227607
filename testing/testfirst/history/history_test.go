// Package history tests make test-first itself, on throwaway git histories of two commits built
// from this repository's tree: a base and a head that differ the way a pull request would. Each
// case says what the tool must find, and fails if it finds otherwise. The tool runs as the
// Makefile runs it, with the control plane in $KUBEBUILDER_ASSETS (`make test-first-selftest`).
package history

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/mutate/mutants"
)

// The scenario every case builds on, and the break in the mutants that it exists to catch.
const label = "skip-when-equal"

var (
	// testFirst is the tool, built once for every case.
	testFirst string
	// source is this repository's root, whose files every throwaway history starts from.
	source string
)

func TestMain(m *testing.M) {
	code, err := buildAndRun(m)
	if err != nil {
		os.Stderr.WriteString("history: " + err.Error() + "\n")
		os.Exit(2)
	}
	os.Exit(code)
}

func buildAndRun(m *testing.M) (int, error) {
	var err error
	if source, err = controlplane.RepoRoot(); err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "test-first-tool-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	testFirst = filepath.Join(dir, "test-first")
	build := exec.Command("go", "build", "-o", testFirst, "./testing/testfirst")
	build.Dir = source
	if out, err := build.CombinedOutput(); err != nil {
		return 0, errors.New(string(out))
	}
	return m.Run(), nil
}

func TestASpecWrittenBeforeItsFixIsRedAtTheBaseAndGreenAtTheHead(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "the break, and no scenario that catches it", breakIt, withoutScenario)
	repo.commit(t, "the fix, with the scenario that catches the break")

	code, table, stderr := repo.testFirst(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, table, stderr)
	}
	row := scenarioRow(t, table)
	for _, want := range []string{"| new |", "| envtest |", "failed: ", "| passed |", "✅ written first"} {
		if !strings.Contains(row, want) {
			t.Errorf("the scenario's row lacks %q: %s", want, row)
		}
	}
	if !strings.Contains(table, "Production code changed: `"+breakFile(t)+"`") {
		t.Errorf("the table does not name the production file the fix changed:\n%s", table)
	}
}

func TestASpecForBehaviourTheBaseHasFails(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "the operator as it is, without the scenario", withoutScenario)
	repo.commit(t, "the scenario alone")

	code, table, stderr := repo.testFirst(t)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s\n%s", code, table, stderr)
	}
	if row := scenarioRow(t, table); !strings.Contains(row, "❌ passed at the base") {
		t.Errorf("the scenario's row does not say it passed at the base: %s", row)
	}
	if !strings.Contains(stderr, `"Sample when a reconcile finds nothing to change sends no API write and leaves the resourceVersions where they were": passed at the base`) {
		t.Errorf("the error does not name the spec:\n%s", stderr)
	}
	if !strings.Contains(table, "Production code unchanged.") {
		t.Errorf("the table does not say that no production code changed:\n%s", table)
	}
}

func TestASpecLabelledCharacterizationMayPassAtTheBase(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "the operator as it is, without the scenario", withoutScenario)
	repo.commit(t, "the scenario, labelled characterization", func(t *testing.T, dir string) {
		t.Helper()
		edit(t, filepath.Join(dir, scenarioFile), `Label("`+label+`")`, `Label("`+label+`", "characterization")`)
	})

	code, table, stderr := repo.testFirst(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, table, stderr)
	}
	row := scenarioRow(t, table)
	if !strings.Contains(row, "| passed | passed |") || !strings.Contains(row, "✅ characterization") {
		t.Errorf("the scenario's row does not report a characterization: %s", row)
	}
	if !strings.Contains(table, "1 characterization") {
		t.Errorf("the summary does not count the characterization:\n%s", table)
	}
}

func TestASpecThatFailsAtTheHeadFails(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "the break, and no scenario that catches it", breakIt, withoutScenario)
	repo.commit(t, "the scenario, but not the fix", breakIt)

	code, table, stderr := repo.testFirst(t)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s\n%s", code, table, stderr)
	}
	row := scenarioRow(t, table)
	if !strings.Contains(row, "❌ fails at the head") {
		t.Errorf("the scenario's row does not say it fails at the head: %s", row)
	}
	if !strings.Contains(stderr, "fails at the head") {
		t.Errorf("the error does not name the spec:\n%s", stderr)
	}
}

// repo is a throwaway git repository, and this repository's files to build its commits from.
type repo struct{ dir, source string }

// newRepo makes an empty repository, with a copy of this repository's files as git lists them
// (committed or not, ignored ones left out).
func newRepo(t *testing.T) *repo {
	t.Helper()
	r := &repo{dir: t.TempDir(), source: t.TempDir()}
	files := run(t, source, "git", "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	for f := range strings.SplitSeq(strings.TrimRight(files, "\x00"), "\x00") {
		info, err := os.Stat(filepath.Join(source, f))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree, not yet in git
		}
		if err != nil {
			t.Fatal(err)
		}
		content, err := os.ReadFile(filepath.Join(source, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(r.source, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.source, f), content, info.Mode()); err != nil {
			t.Fatal(err)
		}
	}
	run(t, r.dir, "git", "init", "-q", "-b", "main")
	return r
}

// commit commits this repository's files, changed by each change.
func (r *repo) commit(t *testing.T, message string, changes ...func(*testing.T, string)) {
	t.Helper()
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(r.dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	run(t, "", "cp", "-a", r.source+"/.", r.dir)
	for _, change := range changes {
		change(t, r.dir)
	}
	run(t, r.dir, "git", "add", "-A")
	run(t, r.dir, "git", "-c", "user.name=history", "-c", "user.email=history@example.com", "commit", "-qm", message)
}

// testFirst runs the tool on the change from the first commit to the second.
func (r *repo) testFirst(t *testing.T) (code int, table, stderr string) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "test-first.md")
	cmd := exec.Command(testFirst, "-base", "HEAD~1", "-report", report)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY=")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	written, readErr := os.ReadFile(report)
	if readErr != nil {
		t.Fatalf("no table written (exit %d): %v\n%s", code, readErr, errOut.String())
	}
	return code, string(written), errOut.String()
}

// scenarioFile is the file of the scenario labelled label.
var scenarioFile = filepath.Join("scenarios", strings.ReplaceAll(label, "-", "_")+"_test.go")

func withoutScenario(t *testing.T, dir string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, scenarioFile)); err != nil {
		t.Fatal(err)
	}
}

// breakIt builds in the first mutant that the scenario exists to catch.
func breakIt(t *testing.T, dir string) {
	t.Helper()
	mutated, err := mutantOf(t).Apply(dir)
	if err != nil {
		t.Fatal(err)
	}
	for file, content := range mutated {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mutantOf(t *testing.T) mutants.Mutant {
	t.Helper()
	for _, m := range mutants.All {
		if m.Scenario == label {
			return m
		}
	}
	t.Fatalf("no mutant for scenario %s", label)
	return mutants.Mutant{}
}

// breakFile is the production file the mutant changes.
func breakFile(t *testing.T) string {
	t.Helper()
	return mutantOf(t).Edits[0].File
}

func edit(t *testing.T, path, from, to string) {
	t.Helper()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(content), from) != 1 {
		t.Fatalf("%s does not hold %q once", path, from)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(content), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scenarioRow is the table's row for the scenario's spec.
func scenarioRow(t *testing.T, table string) string {
	t.Helper()
	const spec = "scenario: Sample when a reconcile finds nothing to change"
	for line := range strings.SplitSeq(table, "\n") {
		if strings.HasPrefix(line, "| "+spec) {
			return line
		}
	}
	t.Fatalf("no row for %q in:\n%s", spec, table)
	return ""
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
