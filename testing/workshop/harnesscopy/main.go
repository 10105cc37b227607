// Command harnesscopy takes the harness as testing/README.md tells a team to take it, and proves
// that the copy works: into a copy of a kubebuilder project (-scaffold: init and one kind, Widget,
// as the Makefile's SCAFFOLD makes it) it copies the directories the README's copy block lists, renames what its rename block lists to the project's
// module, adds a small reconciler for the scaffold's kind (one child ConfigMap per Widget) and one
// scenario written with the copied harness (created and synced; at rest, no write), and runs that
// scenario on envtest. It prints what it copied, renamed and wrote, and the time to green.
// `make test-harness-copy` runs it.
package main

import (
	"bytes"
	"embed"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
)

// written are the files the copier writes after the copy: the reconciler replaces the scaffold's,
// the scenarios package is new.
//
//go:embed testdata
var written embed.FS

// writtenTo maps each directory of testdata to where it goes in the project.
var writtenTo = map[string]string{
	"controller": filepath.Join("internal", "controller"),
	"widgets":    filepath.Join("scenarios", "widgets"),
	"scenarios":  "scenarios",
}

func main() {
	scaffold := flag.String("scaffold", "", "the kubebuilder project to copy the harness into a copy of")
	dir := flag.String("dir", "", "where the copy is made")
	flag.Parse()
	if err := run(*scaffold, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "harnesscopy:", err)
		os.Exit(1)
	}
}

func run(scaffold, dir string) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(root, "testing", "README.md"))
	if err != nil {
		return err
	}
	copies, renames := Block(readme, "copy"), Block(readme, "rename")
	if len(copies) == 0 || len(renames) == 0 {
		return fmt.Errorf("testing/README.md has no copy or no rename block")
	}
	project := filepath.Join(dir, "project")
	if err := os.RemoveAll(project); err != nil {
		return err
	}
	// The scaffold without its bin/: what make bench-suite's runs of its make test installed
	// there (the control plane's binaries among them) is no part of a team's project.
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}
	if err := sh(dir, "sh", "-c", `tar -C "$0" --exclude=./bin -cf - . | tar -C "$1" -xf -`, scaffold, project); err != nil {
		return err
	}
	start := time.Now()
	r, err := take(root, project, copies, renames)
	if err != nil {
		return err
	}
	out, err := output(project, "go", "test", "-count=1", "-v", "./scenarios/", "-ginkgo.no-color")
	if err != nil {
		return err
	}
	ran := regexp.MustCompile(`Ran [1-9][0-9]* of [0-9]+ Specs[^\n]*`).FindString(out)
	if ran == "" {
		return fmt.Errorf("the copy's scenarios ran no spec:\n%s", out)
	}
	r.print(copies, ran, time.Since(start))
	return nil
}

// take copies the directories copies of root into project, renaming renames to its module, writes
// the reconciler and the scenario, and tidies and vets the result.
func take(root, project string, copies, renames []string) (report, error) {
	var r report
	module, err := specreport.ModulePath(project)
	if err != nil {
		return r, err
	}
	for _, d := range copies {
		if err := r.copyDir(filepath.Join(root, d), filepath.Join(project, d), renames, module); err != nil {
			return r, err
		}
	}
	if err := r.write(project); err != nil {
		return r, err
	}
	if err := sh(project, "go", "mod", "tidy"); err != nil {
		return r, err
	}
	return r, sh(project, "go", "vet", "./testing/...", "./scenarios/...")
}

// Block is the lines of the first fenced block of kind (```kind) in markdown, trimmed.
func Block(markdown []byte, kind string) []string {
	_, rest, found := strings.Cut(string(markdown), "```"+kind+"\n")
	if !found {
		return nil
	}
	body, _, _ := strings.Cut(rest, "```")
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// report counts what the copy took and changed.
type report struct {
	copiedFiles, copiedLines, renamedLines int
	codeFiles, codeLines                   int
	writtenFiles, writtenLines             int
}

// copyDir copies the files of from (not its subdirectories) to to, renaming each of renames to
// module in them.
func (r *report) copyDir(from, to string, renames []string, module string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
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
				if strings.Contains(l, old) {
					lines[i] = strings.ReplaceAll(lines[i], old, module)
				}
			}
			if lines[i] != l {
				r.renamedLines++
			}
		}
		r.copiedFiles++
		r.copiedLines += bytes.Count(content, []byte("\n"))
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			r.codeFiles++
			r.codeLines += bytes.Count(content, []byte("\n"))
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// write writes the reconciler, the Widget's Subject and the scenario into project.
func (r *report) write(project string) error {
	return fs.WalkDir(written, "testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		content, err := written.ReadFile(path)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(path, "testdata/")
		to := filepath.Join(project, writtenTo[filepath.Dir(rel)], filepath.Base(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		r.writtenFiles++
		r.writtenLines += bytes.Count(content, []byte("\n"))
		return os.WriteFile(to, content, 0o644)
	})
}

func (r *report) print(copies []string, ran string, green time.Duration) {
	fmt.Printf(`
## The harness, taken as testing/README.md says

| | Files | Lines |
|---|---|---|
| copied (%s) | %d | %d |
| of those, non-test Go | %d | %d |
| of those, lines renamed (the module path) | | %d |
| written: the reconciler, the Widget's Subject, the suite and one scenario | %d | %d |

The copy's scenarios: %s. From the first copied file to that green line (go mod tidy, go vet,
the scenario on envtest): %.1f s.
`, strings.Join(copies, ", "), r.copiedFiles, r.copiedLines, r.codeFiles, r.codeLines, r.renamedLines,
		r.writtenFiles, r.writtenLines, ran, green.Seconds())
}

// sh runs name with args in dir, its output shown only if it fails.
func sh(dir, name string, args ...string) error {
	_, err := output(dir, name, args...)
	return err
}

// output runs name with args in dir and returns its output, which an error quotes.
func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s in %s: %w\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out), nil
}
