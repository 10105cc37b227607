package specsource

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const scenarioFile = `package scenarios

var _ = Describe("Sample", func() {
	It("creates a ConfigMap", func() {
		By("creating")
		Expect(1).To(Equal(1))
	})
	DescribeTable("rejects",
		func(in string) { Expect(in).NotTo(BeEmpty()) },
		Entry("a long one", "x"),
		Entry("a short one", "y"),
	)
})
`

// parse writes content into a file of its own under t's temporary directory and parses it.
func parse(t *testing.T, content string) *File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x_test.go")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestBodyIgnoresCommentsAndLayoutButNotCode(t *testing.T) {
	body := func(content string, line int) string {
		t.Helper()
		b, err := parse(t, content).Body(line)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	original := body(scenarioFile, 4)
	if !strings.Contains(original, `It ( "creates a ConfigMap"`) || strings.Contains(original, "DescribeTable") {
		t.Fatalf("the It at line 4 printed as %q", original)
	}
	commented := strings.Replace(scenarioFile, `		By("creating")`, "\t\t// a comment\n\n\t\tBy(\"creating\")", 1)
	if got := body(commented, 4); got != original {
		t.Errorf("a comment and a blank line changed the body:\n%s\nvs\n%s", got, original)
	}
	changed := strings.Replace(scenarioFile, "Equal(1)", "Equal(2)", 1)
	if got := body(changed, 4); got == original {
		t.Error("a changed assertion left the body the same")
	}

	entry := body(scenarioFile, 10)
	if !strings.Contains(entry, `"a long one"`) || !strings.Contains(entry, "NotTo ( BeEmpty") || strings.Contains(entry, "a short one") {
		t.Errorf("the Entry at line 10 printed as %q: want the entry and the table's body, not the other entries", entry)
	}
	tableChanged := strings.Replace(scenarioFile, "NotTo(BeEmpty())", "To(BeEmpty())", 1)
	if got := body(tableChanged, 10); got == entry {
		t.Error("a changed table body left the entry's body the same")
	}

	if _, err := parse(t, scenarioFile).Body(5); err == nil {
		t.Error("line 5 holds no It, yet a body was found")
	}
}

// TestTheCommentIsTheOneJustAbove: the comment written on the lines just above a spec is its own;
// one with a line between is not.
func TestTheCommentIsTheOneJustAbove(t *testing.T) {
	commented := strings.Replace(scenarioFile, "\tIt(", "\t// Characterization: written after it,\n\t// when it came.\n\tIt(", 1)
	if comment := parse(t, commented).Comment(6); comment != "Characterization: written after it,\nwhen it came.\n" {
		t.Errorf("the comment above the It at line 6: %q", comment)
	}
	apart := strings.Replace(scenarioFile, "\tIt(", "\t// a comment of the Describe\n\n\tIt(", 1)
	if comment := parse(t, apart).Comment(6); comment != "" {
		t.Errorf("a comment a line apart counts as the It's: %q", comment)
	}
}

// TestStepsAreTheBodysByTexts: an It's steps are its own By texts; an Entry's, its table's; a By
// whose text is not a string literal is an empty step.
func TestStepsAreTheBodysByTexts(t *testing.T) {
	f := parse(t, strings.Replace(scenarioFile, `func(in string) {`, `func(in string) { By("checking " + in);`, 1))
	if got := f.Specs[4].Steps(); !slices.Equal(got, []string{"creating"}) {
		t.Errorf("the It's steps: %q", got)
	}
	if got := f.Specs[11].Steps(); !slices.Equal(got, []string{""}) || f.Specs[11].Table == nil {
		t.Errorf("the Entry's steps: %q, its table %v", got, f.Specs[11].Table)
	}
}

// TestPendingAndFocusedSpecsAreSpecs: a spec marked pending (PIt, XIt, PSpecify, PEntry, XEntry,
// a PDescribeTable's entries) or focused (FIt, FEntry) is read like any other, body and all, so
// that the tools can name it and refuse it rather than lose it.
func TestPendingAndFocusedSpecsAreSpecs(t *testing.T) {
	f := parse(t, `package scenarios

var _ = Describe("Sample", func() {
	PIt("is pending", func() { By("waiting") })
	XIt("is pending too", func() {})
	PSpecify("is pending as well", func() {})
	FIt("is focused", func() {})
	XDescribeTable("rejects",
		func(in string) { By("applying it") },
		Entry("a long one", "x"),
		PEntry("a short one", "y"),
	)
	DescribeTable("accepts",
		func(in string) {},
		XEntry("an empty one", ""),
		FEntry("a full one", "z"),
	)
})
`)
	for _, line := range []int{4, 5, 6, 7, 10, 11, 15, 16} {
		if _, err := f.Body(line); err != nil {
			t.Errorf("line %d: %v", line, err)
		}
	}
	if got := f.Specs[11].Steps(); !slices.Equal(got, []string{"applying it"}) {
		t.Errorf("the PEntry's steps, its pending table's: %q", got)
	}
	if got := Unmarked("XDescribeTable"); got != "DescribeTable" {
		t.Errorf(`Unmarked("XDescribeTable") = %q`, got)
	}
	if got := Unmarked("Pending"); got != "Pending" {
		t.Errorf(`Unmarked("Pending") = %q, want it as it is: no node name follows its P`, got)
	}
}
