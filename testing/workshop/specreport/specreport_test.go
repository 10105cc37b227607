package specreport

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

func TestGist(t *testing.T) {
	for message, want := range map[string]string{
		"Timed out after 10.000s.\nThe function passed to Eventually failed at example.com/operator-demo/testing/harness/fixture.go:90 with:\nExpected success, but got an error:\n    <*errors.StatusError | 0xa95f6d42fa0>: \n    configmaps \"edited-config\" not found\n    {\n        ErrStatus: {": `Timed out after 10.000s: configmaps "edited-config" not found`,
		"Timed out after 10.001s.\nValue for field 'Status.ObservedGeneration' failed to satisfy matcher.\nExpected\n    <int64>: 0\nto equal\n    <int64>: 1":                                                                                                                                           "Timed out after 10.001s: Value for field 'Status.ObservedGeneration' failed to satisfy matcher. Expected <int64>: 0 to equal <int64>: 1",
		"Failed after 0.215s.\nExpected\n    <float64>: 3\nto equal\n    <float64>: 2": "Failed after 0.215s: Expected <float64>: 3 to equal <float64>: 2",
		"Expected\n    <bool>: false\nto be true":                                      "Expected <bool>: false to be true",
	} {
		if got := Gist(message); got != want {
			t.Errorf("Gist(%q)\n got %q\nwant %q", message, got, want)
		}
	}
}

func TestGoTestReadsOneResultPerTopLevelTest(t *testing.T) {
	events := `{"Action":"run","Test":"TestA"}
{"Action":"output","Test":"TestA","Output":"    a_test.go:12: data.message = \"drifted\"\n"}
{"Action":"fail","Test":"TestA"}
{"Action":"run","Test":"TestB"}
{"Action":"run","Test":"TestB/sub"}
{"Action":"pass","Test":"TestB/sub"}
{"Action":"run","Test":"TestC"}
{"Action":"run","Test":"TestC/first_row"}
{"Action":"output","Test":"TestC/first_row","Output":"    c_test.go:7: status (-want +got): ...\n"}
{"Action":"fail","Test":"TestC/first_row"}
{"Action":"fail","Test":"TestC"}
{"Action":"pass","Test":"TestB"}
`
	tests, buildErrors, err := GoTest([]byte(events))
	if err != nil {
		t.Fatal(err)
	}
	results := tests.Specs
	if buildErrors != "" || len(results) != 3 {
		t.Fatalf("results %+v, build errors %v", results, buildErrors)
	}
	if a := results[0]; a.Name != "TestA" || !a.Failed() || !a.InSpec || a.Where() != `data.message = "drifted" (a_test.go:12)` {
		t.Errorf("TestA read as %+v (%s)", a, a.Where())
	}
	if b := results[1]; b.Name != "TestB" || !b.Passed {
		t.Errorf("TestB read as %+v", b)
	}
	if c := results[2]; c.Name != "TestC" || !c.Failed() || c.Where() != "status (-want +got): ... (c_test.go:7)" {
		t.Errorf("TestC, failed in a subtest, read as %+v (%s)", c, c.Where())
	}

}

// TestAPackageThatDoesNotBuildIsWhatItsBuildSaid: a build that failed is what it said, whose cause
// is its compiler's error; one that said nothing "does not build"; none, nothing.
func TestAPackageThatDoesNotBuildIsWhatItsBuildSaid(t *testing.T) {
	const output = `{"ImportPath":"example.com/x/controllers [example.com/x/controllers.test]","Action":"build-output","Output":"# example.com/x/controllers\n"}
{"ImportPath":"example.com/x/controllers [example.com/x/controllers.test]","Action":"build-output","Output":"controllers/a_test.go:3:2: undefined: desiredConfigMap\n"}
`
	const failed = `{"Action":"fail","Package":"example.com/x/controllers","FailedBuild":"example.com/x/controllers [example.com/x/controllers.test]"}
`
	for events, want := range map[string]string{
		output + failed:                    "# example.com/x/controllers\ncontrollers/a_test.go:3:2: undefined: desiredConfigMap\n",
		failed:                             "does not build",
		`{"Action":"pass","Test":"TestA"}`: "",
	} {
		if _, buildErrors, err := GoTest([]byte(events)); err != nil || buildErrors != want {
			t.Errorf("GoTest(%s): build errors %q, %v; want %q", events, buildErrors, err, want)
		}
	}
	_, buildErrors, _ := GoTest([]byte(output + failed))
	if got := CompilerCause(buildErrors, "controllers/a_test.go"); got != "controllers/a_test.go:3:2: undefined: desiredConfigMap" {
		t.Errorf("the cause of the failed build: %q", got)
	}
}

// TestFirstFailureIsTheSetupsElseTheFirstFailedSpec: a failed suite setup comes first, whatever
// the specs did; else the first spec that failed; nothing when every spec passed or was skipped.
func TestFirstFailureIsTheSetupsElseTheFirstFailedSpec(t *testing.T) {
	passed, skipped := Result{Name: "passed", Passed: true}, Result{Name: "skipped", Skipped: true}
	first, second := Result{Name: "first", InSpec: true}, Result{Name: "second", InSpec: true}
	setup := Result{Name: "SynchronizedBeforeSuite"}
	for name, tt := range map[string]struct {
		suite Suite
		want  string
	}{
		"the first failed spec":             {Suite{Specs: []Result{passed, skipped, first, second}}, "first"},
		"the setup, before any failed spec": {Suite{Specs: []Result{first}, Setup: &setup}, "SynchronizedBeforeSuite"},
		"nothing failed":                    {Suite{Specs: []Result{passed, skipped}}, ""},
	} {
		got, ok := tt.suite.FirstFailure()
		if got.Name != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: FirstFailure() = %q, %v; want %q", name, got.Name, ok, tt.want)
		}
	}
}

func TestACellIsOneLineWithItsPipesEscaped(t *testing.T) {
	if got := Cell("a | b\n\t  c"); got != `a \| b c` {
		t.Errorf("Cell = %q", got)
	}
}

// TestALocationIsRelativeToTheTree: a file under the tree, or named by the tree's module path (a
// binary built with -trimpath), is named relative to the tree; any other as it is.
func TestALocationIsRelativeToTheTree(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/tree\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		filepath.Join(root, "scenarios", "x_test.go"): filepath.Join("scenarios", "x_test.go"),
		"example.com/tree/scenarios/x_test.go":        "scenarios/x_test.go",
		"example.com/other/x_test.go":                 "example.com/other/x_test.go",
	} {
		if got := relativeFile(root, file); got != want {
			t.Errorf("relativeFile(%s) = %s, want %s", file, got, want)
		}
	}
}

func TestCompilerCauseIsTheFirstUndefinedNameInTheSpecsOwnFile(t *testing.T) {
	output := `# example.com/x/scenarios [example.com/x/scenarios.test]
scenarios/other_test.go:4:2: "strconv" imported and not used
scenarios/annotation_test.go:12:9: cannot use x (variable of type int) as string value
scenarios/annotation_test.go:30:17: undefined: demov1alpha1.GenerationAnnotation
scenarios/other_test.go:9:3: undefined: demov1alpha1.Other
`
	for file, want := range map[string]string{
		"scenarios/annotation_test.go": "scenarios/annotation_test.go:30:17: undefined: demov1alpha1.GenerationAnnotation",
		"scenarios/other_test.go":      "scenarios/other_test.go:9:3: undefined: demov1alpha1.Other",
		// A spec whose file the compiler does not name: the first undefined name anywhere.
		"scenarios/create_test.go": "scenarios/annotation_test.go:30:17: undefined: demov1alpha1.GenerationAnnotation",
	} {
		if got := CompilerCause(output, file); got != want {
			t.Errorf("CompilerCause(…, %s)\n got %q\nwant %q", file, got, want)
		}
	}
	if got := CompilerCause("# pkg\nx.go:1:1: syntax error: unexpected }\n", "y_test.go"); got != "x.go:1:1: syntax error: unexpected }" {
		t.Errorf("without an undefined name, the first error: got %q", got)
	}
	if got := CompilerCause("", "y_test.go"); got != "does not build" {
		t.Errorf("no output: got %q", got)
	}
}

func TestFocusMatchesExactlyTheNamedSpecs(t *testing.T) {
	re := regexp.MustCompile(Focus("Sample scenarios", []string{"Sample when (a) it [b]", "Sample when c it d"}))
	for text, want := range map[string]bool{
		"Sample scenarios Sample when (a) it [b]":       true,
		"Sample scenarios Sample when c it d":           true,
		"Sample scenarios Sample when c it d and e":     false,
		"Sample scenarios Sample when (a) it [b] again": false,
		"Other Sample when c it d":                      false,
	} {
		if got := re.MatchString(text); got != want {
			t.Errorf("focus matches %q: %v, want %v", text, got, want)
		}
	}
}

// TestGinkgoTellsAFailureInTheSpecFromOneOutside: a spec that failed in its It or its
// BeforeEach failed in the spec, after its last By; one that failed in an AfterEach did not; a
// failed BeforeSuite is the suite's setup.
func TestGinkgoTellsAFailureInTheSpecFromOneOutside(t *testing.T) {
	root := t.TempDir()
	at := func(line int) types.CodeLocation {
		return types.CodeLocation{FileName: filepath.Join(root, "scenarios", "x_test.go"), LineNumber: line}
	}
	failedIn := func(text string, node types.NodeType, context types.FailureNodeContext) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLocation: at(1), State: types.SpecStateFailed,
			SpecEvents: types.SpecEvents{{SpecEventType: types.SpecEventByStart, Message: "creating", TimelineLocation: types.TimelineLocation{Order: 1}}},
			Failure:    types.Failure{Message: "boom", Location: at(9), FailureNodeType: node, FailureNodeContext: context, TimelineLocation: types.TimelineLocation{Order: 2}}}
	}
	suite := runOn(t, root, []types.Report{{SuiteDescription: "Scenarios", SpecReports: types.SpecReports{
		failedIn("in its It", types.NodeTypeIt, types.FailureNodeIsLeafNode),
		failedIn("in its BeforeEach", types.NodeTypeBeforeEach, types.FailureNodeInContainer),
		failedIn("in its AfterEach", types.NodeTypeAfterEach, types.FailureNodeInContainer),
		{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: "no cluster", FailureNodeType: types.NodeTypeBeforeSuite, FailureNodeContext: types.FailureNodeIsLeafNode}},
	}}})
	if len(suite.Specs) != 3 || suite.Setup == nil || suite.Setup.Name != "BeforeSuite" || suite.Setup.InSpec {
		t.Fatalf("read %+v, setup %+v", suite.Specs, suite.Setup)
	}
	for i, inSpec := range []bool{true, true, false} {
		if s := suite.Specs[i]; s.InSpec != inSpec || s.Where() != "creating: boom ("+filepath.Join("scenarios", "x_test.go")+":9)" {
			t.Errorf("%s: in the spec %v (want %v), where %q", s.Name, s.InSpec, inSpec, s.Where())
		}
	}
}

// TestAPendingSpecIsToldApart: a spec that Ginkgo reports pending (PIt, XIt, a PDescribe's, the
// Pending decorator's) did not run, and says it is pending; a spec skipped by a filter is not.
func TestAPendingSpecIsToldApart(t *testing.T) {
	suite := runOn(t, t.TempDir(), []types.Report{{SpecReports: types.SpecReports{
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "is pending", State: types.SpecStatePending},
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "is filtered out", State: types.SpecStateSkipped},
	}}})
	if len(suite.Specs) != 2 || !suite.Specs[0].Pending || !suite.Specs[0].Skipped || suite.Specs[1].Pending || !suite.Specs[1].Skipped {
		t.Errorf("read %+v, want the first pending, both not run", suite.Specs)
	}
}

// runOn writes reports as Ginkgo's JSON report under root and reads it through Run, with a
// command that writes no report of its own.
func runOn(t *testing.T, root string, reports []types.Report) Suite {
	t.Helper()
	report, err := json.Marshal(reports)
	path := filepath.Join(root, "report.json")
	if err == nil {
		err = os.WriteFile(path, report, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	suite, _, _, err := Run(exec.Command("true"), path, root)
	if err != nil {
		t.Fatal(err)
	}
	return suite
}
