// Command adopter (make test-adopter) uses the harness as testing/README.md says, a module the
// project requires, in a copy of a kubebuilder project given a webhook; it adds testdata's files (a Pod template in the
// spec, a finalizer, RequeueAfter, a second version converted by a webhook), runs kubebuilder
// create api for a second kind, and checks on envtest that its scenarios pass in 4 processes and
// that each of bugs, built in, fails its scenario within seconds, saying what happened. It prints
// the time to green and each bug's time to red.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
)

// A bug is one line of the project broken: the scenarios of label must fail with it, within seconds,
// saying what happened (named: group 1 of the regexp, or all of it).
type bug struct {
	what, file, unbroken, broken, label string
	named                               *regexp.Regexp
}

const (
	// harnessModule is the harness's module path: until it is published, a replace points it at
	// this repository's testing/.
	harnessModule = "example.com/operator-demo/testing"
	reconciler    = "internal/controller/widget_controller.go"
	reporting     = `logf.FromContext(ctx).Info("reporting Ready", "configMap", child.Name)`
)

var bugs = []bug{{
	what: "status written on every pass, changed or not", file: reconciler, label: "at-rest",
	unbroken: "if equality.Semantic.DeepEqual(before.Status, widget.Status) {",
	broken:   "if equality.Semantic.DeepEqual(before.Status, widget.Status) && false {",
	// The operator's log comes first, then the failure.
	named: regexp.MustCompile(`(?s)INFO\treporting Ready.*(the operator has written, since it came up: [^\n]*widgets/status: [0-9]+)`),
}, {
	what: "the finalizer never removed", file: reconciler, label: "finalizer",
	unbroken: "if controllerutil.RemoveFinalizer(widget, Finalizer) {",
	broken:   "if false && controllerutil.RemoveFinalizer(widget, Finalizer) {",
	named:    regexp.MustCompile(`(?s)objects left of WidgetList in spec-\S+ once the cleanup deleted them.*?held by the finalizers \[shop\.example\.org/configmap\]`),
}, {
	what: "Ready never written, the reconcile requeued (RequeueAfter: Resync)", file: reconciler, label: "synced",
	unbroken: reporting, broken: "return ctrl.Result{RequeueAfter: Resync}, nil",
	named: regexp.MustCompile(`the operator settled without it: no reconcile and no API write for [0-9.]+m?s, after [0-9]+ reconciles and [0-9]+ writes`),
}, {
	what: "Ready never written, the reconcile requeued at once: a loop", file: reconciler, label: "synced",
	unbroken: reporting, broken: "return ctrl.Result{RequeueAfter: time.Millisecond}, nil",
	named: regexp.MustCompile(`the operator is in a reconcile loop: [0-9]+ reconciles during the wait \(widget: [0-9]+\) for 1 Widget in spec-[a-z0-9]+`),
}, {
	what: "the conversion to v2 drops spec.value", file: "api/v2/widget_types.go", label: "conversion",
	unbroken: "dst.Spec = WidgetSpec{Value: src.Spec.Foo, Template: src.Spec.Template}",
	broken:   "dst.Spec = WidgetSpec{Template: src.Spec.Template}",
	named:    regexp.MustCompile(`(?s)spec\.value of Widget shape read through v2, as the conversion webhook converts v1's spec\.foo.*?to equal`),
}}

func main() {
	scaffold := flag.String("scaffold", "", "the kubebuilder project to use the harness in a copy of")
	kubebuilder := flag.String("kubebuilder", "", "the kubebuilder binary that made it")
	dir := flag.String("dir", "", "where the project is made")
	flag.Parse()
	if err := run(*scaffold, *kubebuilder, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "adopter:", err)
		os.Exit(1)
	}
}

func run(scaffold, kubebuilder, dir string) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	project := filepath.Join(dir, "project")
	start, err := take(root, scaffold, kubebuilder, project)
	if err != nil {
		return err
	}
	out, err := output(project, "go", "tool", "ginkgo", "--procs=4", "--no-color", "./scenarios")
	if err != nil {
		return err
	}
	ran := regexp.MustCompile(`Ran [1-9][0-9]* of [0-9]+ Specs[^\n]*`).FindString(out)
	if ran == "" || !strings.Contains(out, "Running in parallel across 4 processes") {
		return fmt.Errorf("the project's scenarios ran no spec in 4 processes:\n%s", out)
	}
	green := time.Since(start)
	fmt.Printf(`
## The harness, used as testing/README.md says

The harness's module required by a kubebuilder project with a webhook (go get, a replace to this
repository's testing/); testdata's files written over it, a second kind added (docs/workshop.md
says what each holds). Its scenarios, in 4 Ginkgo processes: %s, %.1f s from the go get.

| Broken | Scenario | Red after | Its failure says |
|---|---|---|---|
`, ran, green.Seconds())
	for _, b := range bugs {
		named, red, err := b.catch(project)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %s | %s | %s |\n", b.what, b.label, red, specreport.Cell(named))
	}
	return nil
}

// take makes the project: a copy of scaffold with a webhook, requiring the harness's module (a
// replace to root's testing/, then go get, as testing/README.md says), testdata written over it,
// generated, tidied and vetted; later a second kind. It returns when the go get began.
func take(root, scaffold, kubebuilder, project string) (start time.Time, err error) {
	if err := errors.Join(os.RemoveAll(project), os.MkdirAll(project, 0o755)); err != nil {
		return start, err
	}
	// The scaffold without its bin/: the tools its make manifests installed there are no part of
	// a team's project.
	if err := steps(project, copyTree(scaffold, "--exclude=./bin"),
		[]string{kubebuilder, "create", "webhook", "--group", "shop", "--version", "v1", "--kind", "Widget", "--defaulting", "--programmatic-validation"},
	); err != nil {
		return start, err
	}
	start = time.Now()
	if err := steps(project, []string{"go", "mod", "edit", "-replace=" + harnessModule + "=" + filepath.Join(root, "testing")},
		goGet(harnessModule+"@v0.0.0"),
	); err != nil {
		return start, err
	}
	// testdata's files written over the scaffold's; later, a second kind: kubebuilder writes it
	// into main.go at the markers the patch kept.
	if err := steps(project, copyTree(filepath.Join(root, "testing", "workshop", "adopter", "testdata")),
		[]string{"patch", "-p1", "-i", "scaffold.patch"}, []string{"rm", "scaffold.patch"}, []string{"make", "generate", "manifests"},
		goGet("sigs.k8s.io/controller-runtime@v0.25.3"), []string{"go", "mod", "tidy"},
		goGet("-tool", "github.com/onsi/ginkgo/v2/ginkgo"), []string{"go", "vet", "./..."},
		[]string{kubebuilder, "create", "api", "--group", "shop", "--version", "v1", "--kind", "Gadget", "--resource", "--controller"},
		[]string{"make", "generate", "manifests"}, []string{"go", "vet", "./..."},
	); err != nil {
		return start, err
	}
	main, err := os.ReadFile(filepath.Join(project, "cmd", "main.go"))
	if err != nil {
		return start, err
	}
	if !bytes.Contains(main, []byte("controller.GadgetReconciler{")) || !bytes.Contains(main, []byte("// +kubebuilder:scaffold:builder")) {
		return start, fmt.Errorf("kubebuilder create api wired no GadgetReconciler into cmd/main.go at its markers:\n%s", main)
	}
	return start, nil
}

// catch builds in the bug, runs the scenarios of its label and returns what their failure says
// and the failed spec's time; then mends the bug.
func (b bug) catch(project string) (named string, red time.Duration, err error) {
	path := filepath.Join(project, b.file)
	code, err := os.ReadFile(path)
	if err != nil {
		return "", 0, err
	}
	if err := os.WriteFile(path, bytes.Replace(code, []byte(b.unbroken), []byte(b.broken), 1), 0o644); err != nil {
		return "", 0, err
	}
	defer func() { err = errors.Join(err, os.WriteFile(path, code, 0o644)) }()
	out, err := output(project, "go", "tool", "ginkgo", "--procs=4", "--no-color", "--label-filter="+b.label, "./scenarios")
	if err == nil {
		return "", 0, fmt.Errorf("the %s scenarios passed with %s:\n%s", b.label, b.what, out)
	}
	match := b.named.FindStringSubmatch(err.Error())
	took := regexp.MustCompile(`\[FAILED\] \[([0-9.]+) seconds\]`).FindStringSubmatch(err.Error())
	if match == nil || took == nil {
		return "", 0, fmt.Errorf("the %s scenarios failed with %s, but not saying /%s/:\n%w", b.label, b.what, b.named, err)
	}
	if red, err = time.ParseDuration(took[1] + "s"); err == nil && red > redWithin {
		err = fmt.Errorf("the %s scenarios took %s to fail with %s, more than %s", b.label, red, b.what, redWithin)
	}
	return strings.Join(strings.Fields(match[len(match)-1]), " "), red.Round(100 * time.Millisecond), err
}

// redWithin is how long a spec may take to fail with a bug built in: half the harness's shortest
// timeout (Converge), so that the failure is the wait's own verdict (Settle, 1.5 s, and the spec's
// steps around it: 2–3 s measured), never a timeout. A tighter bound failed on a busy CI machine.
const redWithin = harness.Converge / 2

// goGet is the step go get args.
func goGet(args ...string) []string { return append([]string{"go", "get"}, args...) }

// copyTree is the step that copies the tree at from into the directory it runs in, tar's flags
// (an exclusion, say) given.
func copyTree(from string, flags ...string) []string {
	return append([]string{"sh", "-c", `tar -C "$0" "$@" -cf - . | tar -xf -`, from}, flags...)
}

// steps runs each step, a command and its arguments, in dir, up to the first that fails.
func steps(dir string, steps ...[]string) error {
	for _, step := range steps {
		if _, err := output(dir, step[0], step[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// output runs name with args in dir and returns its output, which an error quotes. A make it runs
// (or kubebuilder runs) is the scaffold's own, as its developer would start it: without the
// calling make's flags.
func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = slices.DeleteFunc(os.Environ(), func(v string) bool {
		return strings.HasPrefix(v, "MAKEFLAGS=") || strings.HasPrefix(v, "MAKELEVEL=") || strings.HasPrefix(v, "MFLAGS=")
	})
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s in %s: %w\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out), nil
}
