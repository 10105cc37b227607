// Package history tests make test-first itself, on throwaway git histories of two commits built
// from this repository's tree: a base and a head that differ the way a pull request would. Each
// case says what the tool must find, and fails if it finds otherwise. The tool runs as the
// Makefile runs it, with the control plane in $KUBEBUILDER_ASSETS (`make test-first-selftest`).
package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"example.com/operator-demo/testing/workshop/mutate/mutants"
	workshoprepo "example.com/operator-demo/testing/workshop/repo"
)

// The scenario every case builds on, and the break in the mutants that it exists to catch: its
// label, and its spec's full name as the table shows it.
const (
	label        = "skip-when-equal"
	scenarioName = "Sample when a reconcile finds nothing to change sends no API write and leaves the resourceVersions where they were"
)

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
	if source, err = workshoprepo.Root(); err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "test-first-tool-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	testFirst = filepath.Join(dir, "test-first")
	build := exec.Command("go", "build", "-o", testFirst, "./testfirst")
	build.Dir = filepath.Join(source, "testing", "workshop")
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

// A change whose suite wires what the change adds to controllers/ (the operator's webhooks, a
// setup function) does not compile against the base, even with the head's api/: its scenario runs
// against the base's behaviour once more as the base wires its scenarios (scenarios/samples), and
// is red there.
func TestASpecWhoseSuiteWiresNewCodeIsRedAsTheBaseWiresIt(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "the break, and no scenario that catches it", breakIt, withoutScenario)
	repo.commit(t, "the fix, with the scenario that catches the break, and the suite wired through a new setup function", wiredThroughSetup)

	code, table, stderr := repo.testFirst(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, table, stderr)
	}
	row := scenarioRow(t, table)
	for _, want := range []string{"| new |", "undefined: controllers.SetupSample", "; as the base wires its scenarios: failed: ", "| passed |",
		"✅ written first: red against the base's behaviour with the head's api/, as the base wires its scenarios"} {
		if !strings.Contains(row, want) {
			t.Errorf("the scenario's row lacks %q: %s", want, row)
		}
	}
}

// wiredThroughSetup wires the suite's operator through a function new to controllers/.
func wiredThroughSetup(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "controllers", "setup.go"), "package controllers\n\nimport ctrl \"sigs.k8s.io/controller-runtime\"\n\n"+
		"// SetupSample sets r up with mgr, as cmd/ would.\nfunc SetupSample(r *SampleReconciler, mgr ctrl.Manager) error {\n\treturn r.SetupWithManager(mgr)\n}\n")
	edit(t, filepath.Join(dir, "scenarios", "samples", "operator.go"), "return r.SetupWithManager(mgr)", "return controllers.SetupSample(r, mgr)")
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
	if !strings.Contains(stderr, `"`+scenarioName+`": passed at the base`) {
		t.Errorf("the error does not name the spec:\n%s", stderr)
	}
	if !strings.Contains(table, "Production code unchanged.") {
		t.Errorf("the table does not say that no production code changed:\n%s", table)
	}
}

// A spec of behaviour the base has, labelled characterization with its reason, may pass at the
// base, and the table shows the reason and the break of the controller that fails it at the head;
// a unit test of a new function is red at the base because the function is not there.
func TestASpecLabelledCharacterizationMayPassAtTheBase(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "the operator as it is, without the scenario", withoutScenario)
	repo.commit(t, "the scenario, labelled characterization, and a new function with its unit test", func(t *testing.T, dir string) {
		t.Helper()
		edit(t, filepath.Join(dir, scenarioFile), `		It("sends no API write`, "\t\t// Characterization: "+reason+"\n\t\tIt(\"sends no API write")
		edit(t, filepath.Join(dir, scenarioFile), `Label("`+label+`")`, `Label("`+label+`", "characterization")`)
		suspended(t, dir)
	})

	code, table, stderr := repo.testFirst(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, table, stderr)
	}
	row := scenarioRow(t, table)
	if !strings.Contains(row, "| passed | passed |") || !strings.Contains(row, "✅ characterization") || !strings.Contains(row, strings.TrimSuffix(reason, ".")+"; fails against") {
		t.Errorf("the scenario's row does not report a characterization with its reason: %s", row)
	}
	if !strings.Contains(row, "fails against: controllers/") {
		t.Errorf("the scenario's row does not name the break of the controller that fails it: %s", row)
	}
	if row := rowOf(t, table, "unit: TestSuspendedReason"); !strings.Contains(row, "✅ written first: does not compile against the base, even with the head's api/") {
		t.Errorf("the unit test of the new function is not shown written first: %s", row)
	}
	if !strings.Contains(table, "1 characterization") {
		t.Errorf("the summary does not count the characterization:\n%s", table)
	}
}

// A characterization spec must be able to fail: each runs at the head against the breaks of the
// production code it reaches, and one of them must fail it, which the table names. One that no
// break fails is refused, unless its comment states which promise no break can reach, and why,
// which the table shows for a reviewer; a statement that says nothing is refused as a reason that
// says nothing is. Unit tests, each of a builder of the controller, cheap to run against every
// break they reach.
func TestACharacterizationSpecMustFailAgainstABreak(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "main")
	repo.commit(t, "the ConfigMap's builder, characterized four ways", func(t *testing.T, dir string) {
		t.Helper()
		writeFile(t, filepath.Join(dir, "controllers", "characterized_test.go"), characterized)
	})

	code, table, stderr := repo.testFirst(t)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s\n%s", code, table, stderr)
	}
	for spec, want := range map[string][]string{
		"unit: TestBuildingAConfigMap |":              {"❌ no break of the production code it reaches fails it", "No break reaches it: <the promise it pins>, because"},
		"unit: TestBuildingAConfigMapNeverPanics |":   {"⚠️ characterization", unreachable},
		"unit: TestBuildingAConfigMapIsFine |":        {"❌ its statement that no break reaches it says nothing"},
		"unit: TestAConfigMapIsNamedAfterItsSample |": {"✅ characterization", "fails against: "},
	} {
		row := rowOf(t, table, spec)
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("the row of %q lacks %q: %s", spec, w, row)
			}
		}
	}
	if !strings.Contains(stderr, `"TestBuildingAConfigMap": no break of the production code it reaches fails it`) {
		t.Errorf("the error does not name the vacuous spec:\n%s", stderr)
	}
	if !strings.Contains(table, "❌ 2 not shown test-first") {
		t.Errorf("the summary does not count the two apart:\n%s", table)
	}
}

// unreachable is a statement, in the form the README asks for, that no break reaches a spec.
const unreachable = "No break reaches it: that building a Sample's ConfigMap never panics, because no generic break of the builder, a field left out or a constant replaced, makes it panic."

// characterized are four characterization unit tests of the ConfigMap's builder, each with its
// reason: one that can never fail; the same, stating the promise no break can reach; the same,
// with a statement that says nothing; and one that a break of the builder fails.
const characterized = `package controllers

import (
	"testing"

	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// TestBuildingAConfigMap builds a Sample's ConfigMap.
//
// Characterization: ` + reason + `
func TestBuildingAConfigMap(t *testing.T) {
	_ = desiredConfigMap(&demov1beta1.Sample{})
}

// TestBuildingAConfigMapNeverPanics builds a Sample's ConfigMap, which must not panic.
//
// Characterization: ` + reason + `
//
// ` + unreachable + `
func TestBuildingAConfigMapNeverPanics(t *testing.T) {
	_ = desiredConfigMap(&demov1beta1.Sample{})
}

// TestBuildingAConfigMapIsFine builds a Sample's ConfigMap.
//
// Characterization: ` + reason + `
//
// No break reaches it: n/a.
func TestBuildingAConfigMapIsFine(t *testing.T) {
	_ = desiredConfigMap(&demov1beta1.Sample{})
}

// TestAConfigMapIsNamedAfterItsSample: the ConfigMap of the Sample greeting is greeting-config.
//
// Characterization: ` + reason + `
func TestAConfigMapIsNamedAfterItsSample(t *testing.T) {
	sample := &demov1beta1.Sample{}
	sample.Name = "greeting"
	if got := desiredConfigMap(sample).Name; got == nil || *got != "greeting-config" {
		t.Errorf("the ConfigMap of Sample greeting is named %v, want greeting-config", got)
	}
}
`

// reason is a characterization reason in the form the README asks for.
const reason = "written after the code it pins, when the introductory article's stage three came to this repository."

// suspended adds a function to controllers/ with a unit test that passes when the function works.
func suspended(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "controllers", "suspended.go"), "package controllers\n\nimport \"fmt\"\n\n// suspendedReason is the message of a suspended Sample.\nfunc suspendedReason(name string) string {\n\treturn fmt.Sprintf(\"Sample %s is suspended\", name)\n}\n")
	writeFile(t, filepath.Join(dir, "controllers", "suspended_test.go"), "package controllers\n\nimport \"testing\"\n\nfunc TestSuspendedReason(t *testing.T) {\n\tif suspendedReason(\"greeting\") != \"Sample greeting is suspended\" {\n\t\tt.Error(\"wrong reason\")\n\t}\n}\n")
}

// The dishonest changes a pull request can make to get a spec through without it ever being seen
// to fail, each refused by name: a characterization spec weakened in a commit of its own; the
// label without a reason, or with one that says nothing; an existing spec weakened and labelled
// characterization in the same commit.
func TestDishonestChangesAreRefused(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "main")
	// Each commit is the repository's files with its changes: a later commit repeats the earlier's.
	added := func(t *testing.T, dir string) {
		t.Helper()
		writeFile(t, filepath.Join(dir, "scenarios", "dishonest_test.go"), dishonestSpecs)
	}
	weakened := func(t *testing.T, dir string) {
		t.Helper()
		edit(t, filepath.Join(dir, "scenarios", "owned_drift_test.go"), "\t\t\t\tHaveField(\"Action\", \"UpdateConfigMap\"),\n", "")
	}
	repo.commit(t, "specs of old behaviour labelled without a reason", added)
	repo.commit(t, "owned-drift: the event's action is no business of the scenario's", added, weakened)
	repo.commit(t, "skip-when-equal: labelled characterization, loosened", added, weakened, func(t *testing.T, dir string) {
		t.Helper()
		edit(t, filepath.Join(dir, scenarioFile), `		It("sends no API write`, "\t\t// Characterization: "+reason+"\n\t\tIt(\"sends no API write")
		edit(t, filepath.Join(dir, scenarioFile), `Label("`+label+`")`, `Label("`+label+`", "characterization")`)
		edit(t, filepath.Join(dir, scenarioFile), `HaveField("Writes", before.Writes)`, `HaveField("Writes", BeNumerically(">=", 0))`)
	})

	code, table, stderr := repo.testFirstFrom(t, "HEAD~3")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s\n%s", code, table, stderr)
	}
	for spec, want := range map[string]string{
		"scenario: Sample when someone edits its ConfigMap records the correction":                               "❌ passed at the base, as a changed characterization spec does by nature: weakening one is a rewrite",
		"scenario: Sample when created, as the create scenario has it is Ready, labelled without a reason":       "❌ labelled characterization without its reason",
		"scenario: Sample when created, as the create scenario has it is Ready, with a reason that says nothing": "❌ labelled characterization without its reason",
		"scenario: Sample when a reconcile finds nothing to change":                                              "❌ passed at the base, as a changed characterization spec does by nature",
	} {
		if row := rowOf(t, table, spec); !strings.Contains(row, want) {
			t.Errorf("the row of %q lacks %q: %s", spec, want, row)
		}
	}
	if !strings.Contains(table, "❌ 4 not shown test-first") {
		t.Errorf("the summary does not count the four apart:\n%s", table)
	}
}

// dishonestSpecs are two specs of behaviour the base has, labelled characterization: one without a
// reason, one with a reason that says neither what it pins nor why it came after the code.
const dishonestSpecs = `package scenarios

import (
	. "github.com/onsi/ginkgo/v2"

	"example.com/operator-demo/scenarios/samples"
)

var _ = Describe("Sample", Label("dishonest"), func() {
	Context("when created, as the create scenario has it", func() {
		It("is Ready, labelled without a reason", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			f.EventuallySynced(ctx, f.CreateSample(ctx, "unexplained", "hello"))
		})

		// Characterization: written after the code.
		It("is Ready, with a reason that says nothing", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			f.EventuallySynced(ctx, f.CreateSample(ctx, "boilerplate", "hello"))
		})
	})
})
`

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

// The README's way to add a behaviour, made with the two mistakes a newcomer makes: the new name
// goes into api/ first and is committed with the scenario, seen failing; the code
// follows on a branch; the base is the merge-base with main, as make test-first takes it by
// default. Either scenario passes against the base's behaviour, so neither was written first,
// whatever the compile error against the base's api/ says.
func TestACopiedSpecWithANewAPINameFailsAgainstTheMergeBase(t *testing.T) {
	copied := func(t *testing.T, dir string) {
		t.Helper()
		body, err := os.ReadFile(filepath.Join(dir, scenarioFile))
		if err != nil {
			t.Fatal(err)
		}
		spec := string(body)
		for from, to := range map[string]string{
			`Label("` + label + `")`:                                               `Label("paused")`,
			`"when a reconcile finds nothing to change"`:                           `"when annotated paused"`,
			`"sends no API write and leaves the resourceVersions where they were"`: `"leaves the ConfigMap alone"`,
			"f := samples.NewFixture(ctx, suiteCluster)\n":                         "f := samples.NewFixture(ctx, suiteCluster)\n\t\t\t_ = demov1alpha1.PausedAnnotation\n",
			`"example.com/operator-demo/scenarios/samples"`:                        "demov1alpha1 \"example.com/operator-demo/api/v1alpha1\"\n\t\"example.com/operator-demo/scenarios/samples\"",
		} {
			if strings.Count(spec, from) != 1 {
				t.Fatalf("%s does not hold %q once", scenarioFile, from)
			}
			spec = strings.Replace(spec, from, to, 1)
		}
		writeFile(t, filepath.Join(dir, "scenarios", "paused_test.go"), spec)
	}
	assertion := "\t\t\tf.CreateSample(ctx, \"paused\", \"hello\")\n\t\t\tBy(\"checking \" + demov1alpha1.PausedAnnotation)\n\t\t\tExpect(true).To(BeTrue())\n"
	vacuous := func(t *testing.T, dir string) {
		t.Helper()
		writeFile(t, filepath.Join(dir, "scenarios", "paused_test.go"), `package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
)

var _ = Describe("Sample", Label("paused"), func() {
	Context("when annotated paused", func() {
		It("leaves the ConfigMap alone", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
`+assertion+`		})
	})
})
`)
	}
	for name, scenario := range map[string]func(*testing.T, string){"a copy of an existing spec": copied, "a vacuous assertion": vacuous} {
		t.Run(name, func(t *testing.T) {
			repo := newRepo(t)
			repo.commit(t, "main, before the behaviour")
			run(t, repo.dir, "git", "checkout", "-qb", "paused")
			repo.commit(t, "paused: the API name and the scenario, seen failing", pausedAPI, scenario)
			repo.commit(t, "paused: the code", pausedAPI, scenario, func(t *testing.T, dir string) {
				t.Helper()
				writeFile(t, filepath.Join(dir, "controllers", "paused.go"), "package controllers\n\n// paused is where the code would go.\nconst paused = true\n\nvar _ = paused\n")
			})

			code, table, stderr := repo.testFirstFrom(t, strings.TrimSpace(run(t, repo.dir, "git", "merge-base", "main", "HEAD")))
			if code != 1 {
				t.Fatalf("exit %d, want 1:\n%s\n%s", code, table, stderr)
			}
			row := rowOf(t, table, "scenario: Sample when annotated paused leaves the ConfigMap alone")
			for _, want := range []string{"| new |", "undefined: demov1alpha1.PausedAnnotation", "with the head's api/: passed", "❌ passes against the base's behaviour once given the head's api/ names"} {
				if !strings.Contains(row, want) {
					t.Errorf("the row lacks %q: %s", want, row)
				}
			}
			if !strings.Contains(table, "❌ 1 not shown test-first") {
				t.Errorf("the summary does not count the spec apart:\n%s", table)
			}
		})
	}
}

// A new validation rule lives in api/ alone (a marker, and the CRD generated from it): the spec
// that checks it runs against the base's CRD, which lacks the rule, so it is red there.
func TestAValidationRuleInAPIAloneIsWrittenFirst(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "no rule on the Sample's name", func(t *testing.T, dir string) {
		t.Helper()
		edit(t, filepath.Join(dir, "api", "v1alpha1", "sample_types.go"), nameRuleMarker, "")
		edit(t, filepath.Join(dir, "api", "v1beta1", "sample_types.go"), nameRuleMarker, "")
		editEach(t, filepath.Join(dir, "config", "crd", "bases", "demo.example.com_samples.yaml"), nameRuleSchema, "", 2) // each version's schema
		edit(t, filepath.Join(dir, "scenarios", "validation_test.go"), nameRuleEntry, "")
	})
	repo.commit(t, "the rule, and the spec that checks it")

	code, table, stderr := repo.testFirst(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s\n%s", code, table, stderr)
	}
	row := rowOf(t, table, "scenario: Sample when its spec is invalid is rejected by the API server with a message naming the field a name too long")
	if !strings.Contains(row, "| new |") || !strings.Contains(row, "failed: ") || !strings.Contains(row, "✅ written first") {
		t.Errorf("the rule's spec is not shown written first: %s", row)
	}
	if !strings.Contains(table, "api/v1alpha1/sample_types.go") || !strings.Contains(table, "config/crd/bases/demo.example.com_samples.yaml") {
		t.Errorf("the table does not name the API and the CRD as the production that changed:\n%s", table)
	}
}

// A changed spec that passes against the base is allowed only where a commit of the change states
// its rewrite, by name; the table quotes that commit, and the sweep of the lines the spec reaches
// at the head, each break killed.
func TestARewriteIsStatedPerSpecByACommitTrailer(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "main")
	rewrite := func(t *testing.T, dir string) {
		t.Helper()
		edit(t, filepath.Join(dir, scenarioFile), `f.Eventually(ctx, f.Operator.Read).Should(HaveField("Reconciles", BeNumerically(">", before.Reconciles)))`,
			`f.Eventually(ctx, f.Operator.Read).Should(HaveField("Reconciles", BeNumerically(">=", before.Reconciles+1)))`)
	}
	repo.commit(t, "skip-when-equal: wait for the reconcile as the other scenarios do", rewrite)
	code, table, stderr := repo.testFirst(t)
	if code != 1 || !strings.Contains(scenarioRow(t, table), "❌ passed at the base") || !strings.Contains(scenarioRow(t, table), "Spec-Rewrite") {
		t.Fatalf("a changed spec green at the base, no statement: exit %d, want 1 and the trailer named:\n%s\n%s", code, table, stderr)
	}

	repo.amend(t, "Spec-Rewrite: "+scenarioName)
	code, table, stderr = repo.testFirst(t)
	if code != 0 {
		t.Fatalf("with the statement: exit %d, want 0:\n%s\n%s", code, table, stderr)
	}
	if row := scenarioRow(t, table); !strings.Contains(row, "⚠️ rewritten") || !strings.Contains(row, "skip-when-equal: wait for the reconcile as the other scenarios do") {
		t.Errorf("the row does not show the statement: %s", row)
	}
	if row := scenarioRow(t, table); !strings.Contains(row, "each killed by a test that reaches it") {
		t.Errorf("the row does not show the sweep of the lines the rewritten spec reaches: %s", row)
	}
	if !strings.Contains(table, "⚠️ 1 rewrites stated") {
		t.Errorf("the summary does not count the rewrite apart:\n%s", table)
	}
}

// A spec rewritten under a trailer Spec-Rewrite is judged by the mutation sweep of the production
// lines it reaches at the head: each break of them must be killed by a test that reaches it. The
// only unit test of a function, weakened until it checks nothing, leaves the function's break
// alive, and the row names it; a unit test rewritten in another form that checks the same is
// allowed, shown for a reviewer.
func TestARewriteIsJudgedByTheSweepOfTheLinesItReaches(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "two functions of the controller, each with its unit test", suspended, resumed(resumedTest))
	repo.commit(t, "suspended, resumed: their unit tests in another form", suspended, resumed(resumedRewritten), func(t *testing.T, dir string) {
		t.Helper()
		writeFile(t, filepath.Join(dir, "controllers", "suspended_test.go"), suspendedWeakened)
	})
	repo.amend(t, "Spec-Rewrite: TestSuspendedReason")
	repo.amend(t, "Spec-Rewrite: TestResumedReason")

	code, table, stderr := repo.testFirst(t)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s\n%s", code, table, stderr)
	}
	const survivor = `controllers/suspended.go suspendedReason constant: "Sample %s is suspended" → ""`
	if row := rowOf(t, table, "unit: TestSuspendedReason"); !strings.Contains(row, "❌ rewritten") || !strings.Contains(row, survivor) {
		t.Errorf("the weakened test's row does not refuse it, naming the break that survives: %s", row)
	}
	if !strings.Contains(stderr, `"TestSuspendedReason": rewritten`) || !strings.Contains(stderr, survivor) {
		t.Errorf("the error does not name the weakened test and the break:\n%s", stderr)
	}
	if row := rowOf(t, table, "unit: TestResumedReason"); !strings.Contains(row, "⚠️ rewritten") || !strings.Contains(row, "each killed by a test that reaches it") {
		t.Errorf("the honest rewrite's row does not show it allowed, its breaks killed: %s", row)
	}
	if !strings.Contains(table, "⚠️ 1 rewrites stated") || !strings.Contains(table, "❌ 1 not shown test-first") {
		t.Errorf("the summary does not count the rewrite and the refusal apart:\n%s", table)
	}
}

// suspendedWeakened is suspended's unit test, weakened: it calls the function and checks nothing.
const suspendedWeakened = "package controllers\n\nimport \"testing\"\n\nfunc TestSuspendedReason(t *testing.T) {\n\t_ = suspendedReason(\"greeting\")\n}\n"

// The unit test of resumedReason, and the same check in another form.
const (
	resumedTest      = "func TestResumedReason(t *testing.T) {\n\tif resumedReason(\"greeting\") != \"Sample greeting is resumed\" {\n\t\tt.Error(\"wrong reason\")\n\t}\n}\n"
	resumedRewritten = "func TestResumedReason(t *testing.T) {\n\tif got, want := resumedReason(\"greeting\"), \"Sample greeting is resumed\"; got != want {\n\t\tt.Errorf(\"resumedReason(greeting) = %q, want %q\", got, want)\n\t}\n}\n"
)

// resumed adds a function to controllers/ with test, its unit test.
func resumed(test string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		writeFile(t, filepath.Join(dir, "controllers", "resumed.go"), "package controllers\n\nimport \"fmt\"\n\n// resumedReason is the message of a Sample resumed.\nfunc resumedReason(name string) string {\n\treturn fmt.Sprintf(\"Sample %s is resumed\", name)\n}\n")
		writeFile(t, filepath.Join(dir, "controllers", "resumed_test.go"), "package controllers\n\nimport \"testing\"\n\n"+test)
	}
}

// A scenario deleted whole (its spec, its mutants, its line in the reading order) and committed as
// "cleanup", which passed when test-first looked only at the specs a change adds or changes, is
// refused by name; a commit of the change that names the spec in a trailer Spec-Removed states its
// removal, and the table quotes that commit.
func TestARemovalIsStatedPerSpecByACommitTrailer(t *testing.T) {
	repo := newRepo(t)
	repo.commit(t, "main")
	repo.commit(t, "cleanup", withoutScenario, withoutMutants, func(t *testing.T, dir string) {
		t.Helper()
		edit(t, filepath.Join(dir, "scenarios", "reading-order.txt"), "\n"+label+"\n", "\n")
	})
	code, table, stderr := repo.testFirst(t)
	if code != 1 {
		t.Fatalf("a spec removed, no statement: exit %d, want 1:\n%s\n%s", code, table, stderr)
	}
	if row := scenarioRow(t, table); !strings.Contains(row, "| removed |") || !strings.Contains(row, "❌ removed, and no commit of the change states it") || !strings.Contains(row, "Spec-Removed") {
		t.Errorf("the scenario's row does not refuse its removal and name the trailer: %s", row)
	}
	if !strings.Contains(stderr, `"`+scenarioName+`": removed, and no commit of the change states it`) {
		t.Errorf("the error does not name the spec:\n%s", stderr)
	}
	if !strings.Contains(table, "❌ 1 not shown test-first") {
		t.Errorf("the summary does not count the removal apart:\n%s", table)
	}

	repo.amend(t, "Spec-Removed: "+scenarioName)
	code, table, stderr = repo.testFirst(t)
	if code != 0 {
		t.Fatalf("with the statement: exit %d, want 0:\n%s\n%s", code, table, stderr)
	}
	if row := scenarioRow(t, table); !strings.Contains(row, "| removed |") || !strings.Contains(row, `⚠️ removed: `) || !strings.Contains(row, `"cleanup" states it`) {
		t.Errorf("the row does not show the statement: %s", row)
	}
	if !strings.Contains(table, "⚠️ 1 removals stated") {
		t.Errorf("the summary does not count the removal apart:\n%s", table)
	}
}

// A break added to the sweep's equivalence list, which the sweep then leaves unscored, is refused
// unless a commit of the change names it in a trailer Equivalent; either way the report lists it
// with its reason. The break is a deletion, whose ID ends in a space that git trims from the
// trailer.
func TestANewEquivalentIsStatedByACommitTrailer(t *testing.T) {
	const (
		id     = "controllers/sample_status.go SampleReconciler.writeStatus delete: if equality.Semantic.DeepEqual(status, sample.Status) { return nil } → "
		reason = "a status patched with the status it already has changes nothing a user reads"
		why    = "mutate-sweep: the status's early return saves a request, nothing more"
	)
	repo := newRepo(t)
	repo.commit(t, "main")
	repo.commit(t, why, func(t *testing.T, dir string) {
		t.Helper()
		const list = "var Equivalent = map[string]string{\n"
		edit(t, filepath.Join(dir, "testing", "workshop", "mutate", "sweep", "equivalent.go"), list, list+"\t`"+id+"`: \""+reason+"\",\n")
	})
	code, table, stderr := repo.testFirst(t)
	if code != 1 {
		t.Fatalf("a new equivalent, no statement: exit %d, want 1:\n%s\n%s", code, table, stderr)
	}
	if row := rowOf(t, table, strings.TrimSpace(id)); !strings.Contains(row, "| "+reason+" |") || !strings.Contains(row, "❌ no commit of the change states it: a trailer `Equivalent: <the break's ID>`") {
		t.Errorf("the break's row does not refuse it with its reason: %s", row)
	}
	if !strings.Contains(stderr, "equivalent break "+strconv.Quote(id)+": no commit of the change states it") {
		t.Errorf("the error does not name the break:\n%s", stderr)
	}
	if !strings.Contains(table, "❌ 1 not shown test-first") {
		t.Errorf("the summary does not count the break apart:\n%s", table)
	}

	repo.amend(t, "Equivalent: "+id)
	code, table, stderr = repo.testFirst(t)
	if code != 0 {
		t.Fatalf("with the statement: exit %d, want 0:\n%s\n%s", code, table, stderr)
	}
	if row := rowOf(t, table, strings.TrimSpace(id)); !strings.Contains(row, "| "+reason+" |") || !strings.Contains(row, "⚠️ ") || !strings.Contains(row, strconv.Quote(why)+" states it") {
		t.Errorf("the break's row does not show the statement: %s", row)
	}
}

// A pending spec at the head never runs and never fails: a new PIt left for later, and an existing
// spec turned XIt, are each refused by file:line before anything runs, with a message; no crash.
func TestAPendingSpecIsRefusedByItsLine(t *testing.T) {
	const placeholder = `package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
)

var _ = Describe("Sample", Label("suspend"), func() {
	Context("when suspended", func() {
		PIt("leaves its ConfigMap alone")
	})
})
`
	repo := newRepo(t)
	repo.commit(t, "main")
	repo.commit(t, "suspend: the scenario to write, and skip-when-equal out of its way", func(t *testing.T, dir string) {
		t.Helper()
		writeFile(t, filepath.Join(dir, "scenarios", "suspend_test.go"), placeholder)
		edit(t, filepath.Join(dir, scenarioFile), `It("sends no API write`, `XIt("sends no API write`)
	})
	code, stdout, stderr := repo.runTestFirst(t, "HEAD~1")
	if code != 2 {
		t.Fatalf("exit %d, want 2, refused before anything runs:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"the head has 2 pending spec(s)",
		fmt.Sprintf("%s:%d: %q", filepath.ToSlash(scenarioFile), lineOf(t, filepath.Join(repo.dir, scenarioFile), `XIt("sends no API write`), scenarioName),
		fmt.Sprintf("scenarios/suspend_test.go:%d: %q", lineOf(t, filepath.Join(repo.dir, "scenarios", "suspend_test.go"), "PIt("), "Sample when suspended leaves its ConfigMap alone"),
		"a gap hidden from the run",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "panic:") {
		t.Errorf("test-first crashed:\n%s", stderr)
	}
}

// The name rule of the Sample, as the API, the CRD and the validation scenario have it.
const (
	nameRuleMarker = "// +kubebuilder:validation:XValidation:rule=\"size(self.metadata.name) <= 246\",message=\"metadata.name must be at most 246 characters, so that the ConfigMap name \\\"<name>-config\\\" is at most 253\"\n"
	nameRuleSchema = "        x-kubernetes-validations:\n        - message: metadata.name must be at most 246 characters, so that the ConfigMap\n            name \"<name>-config\" is at most 253\n          rule: size(self.metadata.name) <= 246\n"
	nameRuleEntry  = "\t\t\tEntry(\"a name too long for \\\"<name>-config\\\"\", strings.Repeat(\"n\", demov1alpha1.MaxNameLength+1), map[string]any{\"message\": \"hi\"},\n\t\t\t\t\"metadata.name must be at most 246 characters\"),\n"
)

// pausedAPI adds the API name that the paused scenario uses.
func pausedAPI(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "api", "v1alpha1", "paused.go"), "package v1alpha1\n\n// PausedAnnotation, set to \"true\" on a Sample, pauses its reconciliation.\nconst PausedAnnotation = \"demo.example.com/paused\"\n")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
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

// amend adds a trailer ("Key: value") to the last commit, as a commit of the change states it.
func (r *repo) amend(t *testing.T, trailer string) {
	t.Helper()
	run(t, r.dir, "git", "-c", "user.name=history", "-c", "user.email=history@example.com", "commit", "-q", "--amend", "--no-edit", "--trailer", trailer)
}

// testFirst runs the tool on the change from the commit before the last to the last.
func (r *repo) testFirst(t *testing.T) (code int, table, stderr string) {
	t.Helper()
	return r.testFirstFrom(t, "HEAD~1")
}

// testFirstFrom runs the tool on the change from base to the last commit, as make test-first
// does: it must write its table.
func (r *repo) testFirstFrom(t *testing.T, base string) (code int, table, stderr string) {
	t.Helper()
	code, table, stderr = r.runTestFirst(t, base)
	if table == "" {
		t.Fatalf("no table written (exit %d):\n%s", code, stderr)
	}
	return code, table, stderr
}

// runTestFirst runs the tool on the change from base to the last commit, as make test-first does:
// its exit code, and what it wrote.
func (r *repo) runTestFirst(t *testing.T, base string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(testFirst, "-base", base)
	cmd.Dir = r.dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// scenarioFile is the file of the scenario labelled label.
var scenarioFile = filepath.Join("scenarios", strings.ReplaceAll(label, "-", "_")+"_test.go")

func withoutScenario(t *testing.T, dir string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, scenarioFile)); err != nil {
		t.Fatal(err)
	}
}

// withoutMutants deletes the scenario's mutants from the list make mutate tries: each element of
// mutants.All from its line naming the scenario to the line that closes it.
func withoutMutants(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, "testing", "workshop", "mutate", "mutants", "mutants.go")
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kept := regexp.MustCompile(`(?ms)^\t\{"[^\n]*", "`+label+`",\n.*?\}\},\n`).ReplaceAllString(string(content), "")
	if strings.Contains(kept, `"`+label+`"`) {
		t.Fatalf("%s still names %s with its mutants deleted", path, label)
	}
	writeFile(t, path, kept)
}

// breakIt builds in the first mutant that the scenario exists to catch.
func breakIt(t *testing.T, dir string) {
	t.Helper()
	mutated, err := mutantOf(t).Apply(dir)
	if err != nil {
		t.Fatal(err)
	}
	for file, content := range mutated {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
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
	editEach(t, path, from, to, 1)
}

// editEach replaces each of the times occurrences of from in the file at path with to, and fails
// unless the file holds it exactly that many times.
func editEach(t *testing.T, path, from, to string, times int) {
	t.Helper()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(content), from); n != times {
		t.Fatalf("%s holds %q %d times, not %d", path, from, n, times)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(content), from, to)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scenarioRow is the table's row for the scenario's spec.
func scenarioRow(t *testing.T, table string) string {
	t.Helper()
	return rowOf(t, table, "scenario: Sample when a reconcile finds nothing to change")
}

// rowOf is the table's row whose spec begins with spec.
func rowOf(t *testing.T, table, spec string) string {
	t.Helper()
	for line := range strings.SplitSeq(table, "\n") {
		if strings.HasPrefix(line, "| "+spec) {
			return line
		}
	}
	t.Fatalf("no row for %q in:\n%s", spec, table)
	return ""
}

// lineOf is the line of the file at path that holds text, which it must hold once.
func lineOf(t *testing.T, path, text string) int {
	t.Helper()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(content), text) != 1 {
		t.Fatalf("%s does not hold %q once", path, text)
	}
	return 1 + strings.Count(string(content)[:strings.Index(string(content), text)], "\n")
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
