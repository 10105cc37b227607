// Package workflow checks that there is one definition of CI: the GitHub workflow's jobs (and the
// local actions they use) and .ci/run, what CI runs on this repository's own machines, call the
// same make targets. A tier
// added to one and not the other fails here, by name. It has no code of its own: only this test.
package workflow

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const root = "../../.."

// onlyInTheWorkflow are the targets that .ci/run cannot run, and why.
var onlyInTheWorkflow = map[string]string{
	"test-first":          "it checks a pull request against its base, which a run of main has not",
	"kubernetes-versions": "it only reads the supported minors for the workflow's matrices",
}

// onlyInCIRun are the targets that the workflow need not run, and why.
var onlyInCIRun = map[string]string{
	"kind-images": "GitHub's runners pull kind's node image and the Dockerfile's bases; .ci/run's machines reach no registry",
}

func TestTheWorkflowAndCIRunCallTheSameMakeTargets(t *testing.T) {
	prerequisites := readMakefile(t)
	// make test runs what test-unit and test-envtest run without depending on them: one go test
	// of both tiers' packages, then the scenarios.
	prerequisites["test"] = append(prerequisites["test"], "test-unit", "test-envtest")
	called := workflowTargets(t)
	// What the excused targets need, they may need alone.
	workflow := expand(slices.DeleteFunc(slices.Clone(called), func(target string) bool {
		_, excused := onlyInTheWorkflow[target]
		return excused
	}), prerequisites)
	ciCalled := makeTargets(read(t, ".ci/run"))
	ciRun := expand(slices.DeleteFunc(slices.Clone(ciCalled), func(target string) bool {
		_, excused := onlyInCIRun[target]
		return excused
	}), prerequisites)

	for _, target := range ciRun {
		if !slices.Contains(workflow, target) {
			t.Errorf(".ci/run runs make %s, which no job of .github/workflows/ci.yaml runs", target)
		}
	}
	for _, target := range workflow {
		if !slices.Contains(ciRun, target) {
			t.Errorf(".github/workflows/ci.yaml (with .github/actions) runs make %s, which .ci/run does not", target)
		}
	}
	for target, why := range onlyInTheWorkflow {
		if !slices.Contains(called, target) {
			t.Errorf("make %s is excused from .ci/run (%s) but the workflow does not run it either", target, why)
		}
	}
	for target, why := range onlyInCIRun {
		if !slices.Contains(ciCalled, target) {
			t.Errorf("make %s is excused from the workflow (%s) but .ci/run does not run it either", target, why)
		}
	}
	workflow = expand(called, prerequisites)
	for _, tier := range []string{"test-unit", "test-envtest", "test-e2e-local", "test-e2e-kind", "mutate", "mutate-sweep", "demo", "test-fresh-clone", "test-first-selftest", "test-workshop", "cross-vet", "verify"} {
		if !slices.Contains(workflow, tier) {
			t.Errorf("the workflow does not run make %s", tier)
		}
	}
}

// steps are the steps of a job or of a composite action.
type steps []struct {
	Run string `json:"run"`
}

// workflowTargets are the make targets that the run steps of the workflow's jobs call, and of the
// local actions in .github/actions that the jobs use.
func workflowTargets(t *testing.T) []string {
	t.Helper()
	var wf struct {
		Jobs map[string]struct {
			Steps steps `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(read(t, ".github/workflows/ci.yaml")), &wf); err != nil {
		t.Fatal(err)
	}
	actions, err := filepath.Glob(filepath.Join(root, ".github", "actions", "*", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	all := make([]steps, 0, len(wf.Jobs)+len(actions))
	for _, job := range wf.Jobs {
		all = append(all, job.Steps)
	}
	for _, action := range actions {
		var a struct {
			Runs struct {
				Steps steps `json:"steps"`
			} `json:"runs"`
		}
		rel, _ := filepath.Rel(root, action)
		if err := yaml.Unmarshal([]byte(read(t, rel)), &a); err != nil {
			t.Fatal(err)
		}
		all = append(all, a.Runs.Steps)
	}
	var runs []string
	for _, s := range all {
		for _, step := range s {
			runs = append(runs, step.Run)
		}
	}
	targets := makeTargets(strings.Join(runs, "\n"))
	if len(targets) == 0 {
		t.Fatal("the workflow calls no make target")
	}
	return targets
}

// makeCall is a shell line that runs `make [-s] target [VAR=value…]`, maybe through sudo or in $(…).
var makeCall = regexp.MustCompile(`(?m)^\s*(?:\w+=\$\()?(?:sudo\s+(?:\S+\s+)*?)?make\s+(?:-\S+\s+)*([a-z][a-z0-9-]*)([^\n;&|]*)`)

// makeTargets are the targets that make calls in script name; test-e2e is named for the cluster
// that its E2E_PROVIDER chooses.
func makeTargets(script string) []string {
	calls := makeCall.FindAllStringSubmatch(script, -1)
	out := make([]string, 0, len(calls))
	for _, m := range calls {
		target := m[1]
		if provider := regexp.MustCompile(`E2E_PROVIDER=(\w+)`).FindStringSubmatch(m[2]); target == "test-e2e" && provider != nil {
			target += "-" + provider[1]
		}
		out = append(out, target)
	}
	return out
}

// rule is a Makefile rule's target and its prerequisites.
var rule = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):([^=#\n]*)`)

// include is a Makefile's include line.
var include = regexp.MustCompile(`(?m)^-?include\s+(\S+)$`)

// readMakefile maps each target of the Makefile, and of the make files it includes, to its
// prerequisites that are targets too.
func readMakefile(t *testing.T) map[string][]string {
	t.Helper()
	makefile := read(t, "Makefile")
	for _, m := range include.FindAllStringSubmatch(makefile, -1) {
		makefile += "\n" + read(t, m[1])
	}
	out := map[string][]string{}
	for _, m := range rule.FindAllStringSubmatch(makefile, -1) {
		for _, p := range strings.Fields(m[2]) {
			if !strings.ContainsAny(p, "$|") {
				out[m[1]] = append(out[m[1]], p)
			}
		}
		if _, ok := out[m[1]]; !ok {
			out[m[1]] = nil
		}
	}
	return out
}

// expand is targets with every prerequisite they have, recursively, each once, sorted.
func expand(targets []string, prerequisites map[string][]string) []string {
	var out []string
	var visit func(string)
	visit = func(target string) {
		if slices.Contains(out, target) {
			return
		}
		out = append(out, target)
		for _, p := range prerequisites[target] {
			visit(p)
		}
	}
	for _, t := range targets {
		visit(t)
	}
	slices.Sort(out)
	return out
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
