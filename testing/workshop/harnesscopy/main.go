// Command harnesscopy (make test-harness-copy) takes the harness as testing/README.md says into a
// copy of a kubebuilder project given a webhook, adds testdata's files, and checks on envtest that
// its scenarios pass in 4 processes and that the at-rest one catches a reconciler broken to write
// status on every pass. It prints what it copied and wrote, and the time to green.
package main

import (
	"bytes"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
)

//go:embed testdata
var written embed.FS // the files written into the project, at their paths under testdata

// The break the at-rest scenario must catch: status written on every pass, changed or not.
const (
	reconciler  = "internal/controller/widget_controller.go"
	unbroken    = "if equality.Semantic.DeepEqual(before.Status, widget.Status) {"
	broken      = "if equality.Semantic.DeepEqual(before.Status, widget.Status) && false {"
	operatorLog = "INFO\treporting Ready"
)

func main() {
	scaffold := flag.String("scaffold", "", "the kubebuilder project to copy the harness into a copy of")
	kubebuilder := flag.String("kubebuilder", "", "the kubebuilder binary that made it")
	dir := flag.String("dir", "", "where the copy is made")
	flag.Parse()
	if err := run(*scaffold, *kubebuilder, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "harnesscopy:", err)
		os.Exit(1)
	}
}

func run(scaffold, kubebuilder, dir string) error {
	root, err := repo.Root()
	readme, readErr := os.ReadFile(filepath.Join(root, "testing", "README.md"))
	if err := errors.Join(err, readErr); err != nil {
		return err
	}
	copies, renames := Block(readme, "copy"), Block(readme, "rename")
	if len(copies) == 0 || len(renames) == 0 {
		return fmt.Errorf("testing/README.md has no copy or no rename block")
	}
	project := filepath.Join(dir, "project")
	if err := errors.Join(os.RemoveAll(project), os.MkdirAll(project, 0o755)); err != nil {
		return err
	}
	// The scaffold without its bin/: the tools its make manifests installed there are no part of
	// a team's project.
	if _, err := output(dir, "sh", "-c", `tar -C "$0" --exclude=./bin -cf - . | tar -C "$1" -xf -`, scaffold, project); err != nil {
		return err
	}
	if _, err := output(project, kubebuilder, "create", "webhook", "--group", "shop", "--version", "v1", "--kind", "Widget", "--defaulting", "--programmatic-validation"); err != nil {
		return err
	}
	start := time.Now()
	r, err := take(root, project, copies, renames)
	if err != nil {
		return err
	}
	out, err := output(project, "go", "tool", "ginkgo", "--procs=4", "--no-color", "./scenarios")
	if err != nil {
		return err
	}
	ran := regexp.MustCompile(`Ran [1-9][0-9]* of [0-9]+ Specs[^\n]*`).FindString(out)
	if ran == "" || !strings.Contains(out, "Running in parallel across 4 processes") {
		return fmt.Errorf("the copy's scenarios ran no spec in 4 processes:\n%s", out)
	}
	green := time.Since(start)
	caught, err := breakAtRest(project)
	if err != nil {
		return err
	}
	fmt.Printf(`
## The harness, taken as testing/README.md says

| | Files | Lines |
|---|---|---|
| copied (%s) | %d | %d |
| of those, non-test Go | %d | %d |
| of those, lines renamed (the module path) | | %d |
| written: main.go's wiring exported, the reconciler, the webhook, the Widget's Subject, the suite and its scenarios | %d | %d |

The copy's scenarios, in 4 Ginkgo processes with the webhooks served once: %s. From the first
copied file to that green line (make manifests, go mod tidy, go vet, the scenarios on envtest):
%.1f s.

With the reconciler writing status on every pass, the at-rest scenario fails, saying "%s", with
the operator's log.
`, strings.Join(copies, ", "), r.copied.files, r.copied.lines, r.code.files, r.code.lines, r.renamedLines,
		r.written.files, r.written.lines, ran, green.Seconds(), caught)
	return nil
}

// breakAtRest builds in the break and returns the at-rest scenario's failure; then mends it.
func breakAtRest(project string) (string, error) {
	path := filepath.Join(project, reconciler)
	code, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if bytes.Count(code, []byte(unbroken)) != 1 {
		return "", fmt.Errorf("%s: no line %q to break", reconciler, unbroken)
	}
	if err := os.WriteFile(path, bytes.Replace(code, []byte(unbroken), []byte(broken), 1), 0o644); err != nil {
		return "", err
	}
	defer func() { _ = os.WriteFile(path, code, 0o644) }()
	out, err := output(project, "go", "tool", "ginkgo", "--procs=4", "--no-color", "--label-filter=at-rest", "./scenarios")
	if err == nil {
		return "", fmt.Errorf("the at-rest scenario passed against a reconciler that writes status on every pass:\n%s", out)
	}
	named := regexp.MustCompile(`the operator has written, since it came up: [^\n]*widgets/status: [0-9]+`).FindString(err.Error())
	if named == "" || !strings.Contains(err.Error(), operatorLog) {
		return "", fmt.Errorf("the at-rest scenario failed without naming the status writes or showing the operator's log (%s):\n%w", operatorLog, err)
	}
	return named, nil
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

type count struct{ files, lines int }

func (c *count) add(content []byte) {
	c.files++
	c.lines += bytes.Count(content, []byte("\n"))
}

// report counts what the copy took and changed.
type report struct {
	copied, code, written count
	renamedLines          int
}

// take copies copies from root, and testdata, into project; then patches, generates, tidies, vets.
func take(root, project string, copies, renames []string) (r report, err error) {
	module, err := specreport.ModulePath(project)
	if err != nil {
		return r, err
	}
	for _, d := range copies {
		if err := r.copyDir(filepath.Join(root, d), filepath.Join(project, d), renames, module); err != nil {
			return r, err
		}
	}
	err = fs.WalkDir(written, "testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		content, err := written.ReadFile(path)
		to := filepath.Join(project, strings.TrimPrefix(path, "testdata/"))
		if err := errors.Join(err, os.MkdirAll(filepath.Dir(to), 0o755)); err != nil {
			return err
		}
		r.written.add(content)
		return os.WriteFile(to, content, 0o644)
	})
	if err != nil {
		return r, err
	}
	for _, step := range [][]string{
		{"patch", "-p1", "-i", "main.go.patch"}, {"rm", "main.go.patch"}, {"make", "manifests"},
		{"go", "get", "sigs.k8s.io/controller-runtime@v0.25.2"}, {"go", "mod", "tidy"},
		{"go", "get", "-tool", "github.com/onsi/ginkgo/v2/ginkgo"}, {"go", "vet", "./..."},
	} {
		if _, err := output(project, step[0], step[1:]...); err != nil {
			return r, err
		}
	}
	return r, nil
}

// copyDir copies the files of from (not its subdirectories) to to, renaming renames to module.
func (r *report) copyDir(from, to string, renames []string, module string) error {
	entries, err := os.ReadDir(from)
	if err := errors.Join(err, os.MkdirAll(to, 0o755)); err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		content, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		lines := strings.Split(string(content), "\n")
		for i, l := range lines {
			for _, old := range renames {
				lines[i] = strings.ReplaceAll(lines[i], old, module)
			}
			if lines[i] != l {
				r.renamedLines++
			}
		}
		if r.copied.add(content); strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			r.code.add(content)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// output runs name with args in dir and returns its output, which an error quotes. A make it runs
// is the scaffold's own, as its developer would start it: without the calling make's flags.
func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if name == "make" {
		cmd.Env = slices.DeleteFunc(os.Environ(), func(v string) bool {
			return strings.HasPrefix(v, "MAKEFLAGS=") || strings.HasPrefix(v, "MAKELEVEL=") || strings.HasPrefix(v, "MFLAGS=")
		})
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s in %s: %w\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out), nil
}
