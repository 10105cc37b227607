package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/onsi/ginkgo/v2/types"

	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/workshop/mutate/mutants"
)

// scenarioSource is a scenario file as the catalogue reads it: a doc comment, a Context with an
// It, and a table whose entries share the table's steps. The dry run below lists its specs.
const scenarioSource = `package scenarios

// Paused: a paused Sample keeps its ConfigMap as it is.
//
// Lesson: a field that stops reconciling.
//
// Source: beyond both sources: asked for by a team.
//
// By hand:
//
//	kubectl get samples
var _ = Describe("Sample", Label("paused"), func() {
	Context("when it is paused", func() {
		It("writes nothing", Label("in-process"), func(ctx SpecContext) {
			By("pausing it")
			By("editing its spec")
		})
		DescribeTable("rejects",
			func(name string) {
				By("applying it")
			},
			Entry("a bad name", "x"),
			Entry("a long name", "y"),
		)
	})
})
`

// dryRunOf is the report of a Ginkgo dry run of scenarioSource's file, at path: its specs in
// Ginkgo's (random) order, with their containers' texts, lines and labels.
func dryRunOf(path string) []types.Report {
	at := func(line int) types.CodeLocation { return types.CodeLocation{FileName: path, LineNumber: line} }
	spec := func(text string, line int, containers []string, lines []int, labels [][]string, own ...string) types.SpecReport {
		locations := make([]types.CodeLocation, len(lines))
		for i, l := range lines {
			locations[i] = at(l)
		}
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLocation: at(line), LeafNodeLabels: own,
			ContainerHierarchyTexts: containers, ContainerHierarchyLocations: locations, ContainerHierarchyLabels: labels}
	}
	inTable := []string{"Sample", "when it is paused", "rejects"}
	return []types.Report{{SpecReports: []types.SpecReport{
		{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, LeafNodeLocation: at(1)},
		spec("a long name", 23, inTable, []int{12, 13, 18}, [][]string{{"paused"}, {}, {}}),
		spec("writes nothing", 14, inTable[:2], []int{12, 13}, [][]string{{"paused"}, {}}, "in-process"),
		spec("a bad name", 22, inTable, []int{12, 13, 18}, [][]string{{"paused"}, {}, {}}),
	}}}
}

// readDryRun writes source (scenarioSource, or a variant of it) and the dry run's reports into a
// scenario directory, and reads its scenarios as the catalogue does.
func readDryRun(t *testing.T, source string, reports func(file string) []types.Report) ([]*scenario, []string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, readingOrderFile), []byte("paused\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &reader{}
	got, err := r.scenarios(writeSuite(t, dir, "paused_test.go", source, reports))
	if err != nil {
		t.Fatal(err)
	}
	return got, r.problems
}

// writeSuite writes source into dir's file, and the dry run's reports of it beside it: a suite of
// scenarios for the catalogue to read.
func writeSuite(t *testing.T, dir, file, source string, reports func(file string) []types.Report) suite {
	t.Helper()
	path := filepath.Join(dir, file)
	report, err := json.Marshal(reports(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, content := range map[string]string{path: source, filepath.Join(dir, "dry-run.json"): string(report)} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return suite{Dir: dir, DryRun: filepath.Join(dir, "dry-run.json")}
}

// TestASuiteOfItsOwnIsReadFromItsDirectory: scenarios in a directory below the first suite's (a
// test binary of their own, as scenarios/upgrade is) are read from their own dry run, placed by
// the one reading order, and linked from the catalogue by their path below the first.
func TestASuiteOfItsOwnIsReadFromItsDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, readingOrderFile), []byte("later\npaused\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := strings.Replace(strings.Replace(scenarioSource, `Label("paused")`, `Label("later")`, 1), "Paused:", "Later:", 1)
	laterRun := func(file string) []types.Report {
		reports := dryRunOf(file)
		for _, spec := range reports[0].SpecReports {
			if len(spec.ContainerHierarchyLabels) > 0 {
				spec.ContainerHierarchyLabels[0] = []string{"later"}
			}
		}
		return reports
	}
	r := &reader{}
	got, err := r.scenarios(writeSuite(t, dir, "paused_test.go", scenarioSource, dryRunOf), writeSuite(t, filepath.Join(dir, "upgrade"), "later_test.go", later, laterRun))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Title != "Later" || got[0].File != "upgrade/later_test.go" || got[1].File != "paused_test.go" {
		t.Fatalf("read %+v, problems %v", got, r.problems)
	}
	if len(got[0].Specs) != 3 || !slices.Equal(got[0].Specs[0].Steps, []string{"pausing it", "editing its spec"}) {
		t.Errorf("the second suite's specs read as %+v", got[0].Specs)
	}
	page, err := (&catalogue{Scenarios: got}).render()
	if err != nil {
		t.Fatal(err)
	}
	if want := "[spec](upgrade/later_test.go#L14)"; !strings.Contains(string(page), want) {
		t.Errorf("the catalogue lacks %q:\n%s", want, page)
	}
}

// TestSpecsAreReadFromTheDryRun: the spec tree, the labels and the lines are Ginkgo's own (from
// its dry run), in the order of the source; the steps are the By texts of each spec's source, a
// table's for each of its entries; a table's entries read "table: entry".
func TestSpecsAreReadFromTheDryRun(t *testing.T) {
	got, problems := readDryRun(t, scenarioSource, dryRunOf)
	// The one kind of problem: no scenario has the labels the mutants name.
	if len(got) != 1 || len(problems) != len(mutants.All) {
		t.Fatalf("read %+v, problems %v", got, problems)
	}
	s := got[0]
	if s.Title != "Paused" || s.Line != 12 || !slices.Equal(s.labels, []string{"paused"}) {
		t.Errorf("scenario read as %+v", s)
	}
	want := []spec{
		{Path: []string{"when it is paused"}, Text: "writes nothing", Line: 14, Steps: []string{"pausing it", "editing its spec"}, labels: []string{"paused", "in-process"}},
		{Path: []string{"when it is paused"}, Text: "rejects: a bad name", Line: 22, Steps: []string{"applying it"}, labels: []string{"paused"}},
		{Path: []string{"when it is paused"}, Text: "rejects: a long name", Line: 23, Steps: []string{"applying it"}, labels: []string{"paused"}},
	}
	if diff := cmp.Diff(want, s.Specs, cmp.AllowUnexported(spec{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("specs (-want +got):\n%s", diff)
	}
}

// TestASpecOutsideAScenarioIsAProblem: a spec whose Describe has no scenario doc comment is
// reported, not left out of the catalogue.
func TestASpecOutsideAScenarioIsAProblem(t *testing.T) {
	_, problems := readDryRun(t, scenarioSource, func(file string) []types.Report {
		reports := dryRunOf(file)
		for _, spec := range reports[0].SpecReports {
			if len(spec.ContainerHierarchyLocations) > 0 {
				spec.ContainerHierarchyLocations[0].LineNumber = 11
			}
		}
		return reports
	})
	all := strings.Join(problems, "\n")
	if !strings.Contains(all, `spec "Sample when it is paused writes nothing" is in a Describe without the scenario's doc comment`) {
		t.Errorf("problems:\n%s", all)
	}
}

// TestAPendingSpecIsAProblemNotACrash: a spec that the dry run lists as pending (a PIt, an XEntry)
// is a gap hidden from the run, named by its file:line; a spec listed at a line that holds no It
// or Entry is named too. Neither stops the catalogue short of its other problems.
func TestAPendingSpecIsAProblemNotACrash(t *testing.T) {
	pending := strings.Replace(strings.Replace(scenarioSource, `It("writes nothing"`, `PIt("writes nothing"`, 1), `Entry("a bad name"`, `XEntry("a bad name"`, 1)
	_, problems := readDryRun(t, pending, func(file string) []types.Report {
		reports := dryRunOf(file)
		for i, spec := range reports[0].SpecReports {
			if spec.LeafNodeText == "writes nothing" || spec.LeafNodeText == "a bad name" {
				reports[0].SpecReports[i].State = types.SpecStatePending
			}
		}
		return reports
	})
	all := strings.Join(problems, "\n")
	for _, want := range []string{`paused_test.go:14: spec "Sample when it is paused writes nothing" is pending`, `paused_test.go:22: spec "Sample when it is paused rejects a bad name" is pending`, "a gap hidden from the run"} {
		if !strings.Contains(all, want) {
			t.Errorf("the problems lack %q:\n%s", want, all)
		}
	}

	_, problems = readDryRun(t, strings.Replace(scenarioSource, "\t\tIt(\"writes nothing\"", "\n\t\tIt(\"writes nothing\"", 1), dryRunOf)
	if all := strings.Join(problems, "\n"); !strings.Contains(all, `paused_test.go:14: spec "Sample when it is paused writes nothing": no It or Entry there`) {
		t.Errorf("a spec listed where the source holds none:\n%s", all)
	}
}

func TestParseDoc(t *testing.T) {
	doc := "Create: a new Sample\ngets a ConfigMap.\n\nLesson: owner\nreferences.\n\nSource: the Kubernetes Operator lecture notes, §3.\n\nBy hand:\n\n\tkubectl get samples\n"
	s, err := parseDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Create" || s.Behaviour != "a new Sample gets a ConfigMap." || s.Doc != strings.TrimSpace(doc) {
		t.Errorf("parsed %+v", s)
	}
	for _, bad := range []string{
		"Create: one paragraph only",
		"No title here\n\nLesson: x\n\nSource: beyond both sources: y\n\nBy hand:\n",
		"Create: x\n\nLesson: but nothing else",
		"Create: x\n\nLesson: y\n\nBy hand:\n\n\tkubectl get samples\n",
	} {
		if _, err := parseDoc(bad); err == nil {
			t.Errorf("parseDoc(%q) accepted it", bad)
		}
	}
}

// TestTheCatalogueRendersWhatItRead: a scenario as read from its source and its dry run is
// indexed with the tiers of its specs, counted among the scenarios without a break of their own,
// and written out with its doc comment as written (its lesson, its source, its commands by hand)
// and its specs, each with its tiers, its steps and its line.
func TestTheCatalogueRendersWhatItRead(t *testing.T) {
	read, _ := readDryRun(t, scenarioSource, dryRunOf)
	c := &catalogue{Scenarios: read}
	page, err := c.render()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| [Paused](#paused) | a paused Sample keeps its ConfigMap as it is. | envtest, e2e local, e2e kind |",
		"these have none yet: [Paused](#paused).",
		"## Paused\n\nPaused: a paused Sample keeps its ConfigMap as it is.\n\nLesson: a field that stops reconciling.\n\nSource: beyond both sources: asked for by a team.\n\nBy hand:\n\n\tkubectl get samples\n\n**Specs**",
		"- *when it is paused › it writes nothing* [spec](paused_test.go#L14) — tiers: envtest\n  1. pausing it\n  1. editing its spec\n",
		"- *when it is paused › it rejects: a bad name* [spec](paused_test.go#L22) — tiers: envtest, e2e local, e2e kind\n  1. applying it\n",
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the catalogue lacks %q:\n%s", want, page)
		}
	}
}

// TestTheTiersSayWhatEachLeavesOut: the catalogue lists every tier of tiers.All, cheapest first,
// with the labels of the scenarios it leaves out.
func TestTheTiersSayWhatEachLeavesOut(t *testing.T) {
	rendered, err := (&catalogue{}).render()
	if err != nil {
		t.Fatal(err)
	}
	page := string(rendered)
	_, section, found := strings.Cut(page, "## The tiers")
	if !found {
		t.Fatalf("no tiers section in:\n%s", page)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	last := -1
	for _, tier := range tiers.All {
		at := strings.Index(section, "| "+tier.Name+" | `")
		if at < 0 || at < last {
			t.Errorf("the tiers section does not list %q, after the cheaper tiers, with what it leaves out:\n%s", tier.Name, section)
		}
		last = at
	}
	if !strings.Contains(section, "`kill`") {
		t.Errorf("the tiers section does not name the labels a tier leaves out:\n%s", section)
	}
}
