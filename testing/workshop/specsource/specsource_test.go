package specsource

import (
	"os"
	"path/filepath"
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

// write puts content into a file of its own under t's temporary directory and returns its path.
func write(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBodyIgnoresCommentsAndLayoutButNotCode(t *testing.T) {
	body := func(content string, line int) string {
		t.Helper()
		b, _, err := Body(write(t, "x_test.go", content), line)
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

	if _, _, err := Body(write(t, "y_test.go", scenarioFile), 5); err == nil {
		t.Error("line 5 holds no It, yet a body was found")
	}
}

// TestBodyComesWithTheCommentJustAboveIt: the comment written on the lines just above a spec is
// its own; one with a line between is not.
func TestBodyComesWithTheCommentJustAboveIt(t *testing.T) {
	commented := strings.Replace(scenarioFile, "\tIt(", "\t// Characterization: written after it,\n\t// when it came.\n\tIt(", 1)
	if _, comment, err := Body(write(t, "x_test.go", commented), 6); err != nil || comment != "Characterization: written after it,\nwhen it came.\n" {
		t.Errorf("the comment above the It at line 6: %q, %v", comment, err)
	}
	apart := strings.Replace(scenarioFile, "\tIt(", "\t// a comment of the Describe\n\n\tIt(", 1)
	if _, comment, err := Body(write(t, "x_test.go", apart), 6); err != nil || comment != "" {
		t.Errorf("a comment a line apart counts as the It's: %q, %v", comment, err)
	}
}
