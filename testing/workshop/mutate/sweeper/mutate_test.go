package sweeper

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"example.com/operator-demo/testing/workshop/mutate/mutants"
	"example.com/operator-demo/testing/workshop/mutate/trial"
)

func TestChangedLinesAreTheNewSideOfEachHunk(t *testing.T) {
	diff := `diff --git controllers/a.go controllers/a.go
--- controllers/a.go
+++ controllers/a.go
@@ -10,2 +10,3 @@ func f() {
@@ -40 +41 @@ func g() {
@@ -60,3 +61,0 @@ func h() { (deleted after new line 61)
diff --git controllers/b.go controllers/b.go
--- controllers/b.go
+++ controllers/b.go
@@ -1 +1 @@
diff --git controllers/c.go controllers/c.go
deleted file mode 100644
--- controllers/c.go
+++ /dev/null
@@ -1,9 +0,0 @@ (a deleted file: none of b.go's lines)
`
	got := changedLines(diff)
	delete(got, "/dev/null") // a deleted file's hunk: the file of no break
	want := map[string][]lineRange{
		"controllers/a.go": {{10, 12}, {41, 41}, {61, 62}},
		"controllers/b.go": {{1, 1}},
	}
	for file, ranges := range want {
		if !slices.Equal(got[file], ranges) {
			t.Errorf("%s: %v, want %v", file, got[file], ranges)
		}
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %v", got, want)
	}
}

// TestChooseTakesAScenariosBreaksThatMentionTheText: the mutants of the scenario asked for, or of
// every scenario, whose break mentions the text; none is an error that lists the scenarios.
func TestChooseTakesAScenariosBreaksThatMentionTheText(t *testing.T) {
	all := []mutants.Mutant{{Break: "one watch", Scenario: "create"}, {Break: "two writes", Scenario: "create"}, {Break: "three writes", Scenario: "gc"}}
	for _, tt := range []struct {
		scenario, text string
		want           []string
	}{
		{"create", "", []string{"one watch", "two writes"}},
		{"", "writes", []string{"two writes", "three writes"}},
		{"gc", "writes", []string{"three writes"}},
	} {
		got, err := choose(all, tt.scenario, tt.text)
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, 0, len(got))
		for _, m := range got {
			names = append(names, m.Break)
		}
		if !slices.Equal(names, tt.want) {
			t.Errorf("scenario %q, text %q: chosen %v, want %v", tt.scenario, tt.text, names, tt.want)
		}
	}
	if _, err := choose(all, "gc", "watch"); err == nil || !strings.Contains(err.Error(), "nothing matched") || !strings.Contains(err.Error(), "create, gc") {
		t.Errorf("no mutant chosen: %v, want an error saying nothing matched, listing the scenarios", err)
	}
}

// TestAMutantWhoseScenarioNoSpecCarriesIsAnError: a mutant whose label selects no spec on any
// tier is an error saying that nothing matched, not a pass of no spec and a break that
// "survived"; one whose label selects specs runs them, on the cheapest tier.
func TestAMutantWhoseScenarioNoSpecCarriesIsAnError(t *testing.T) {
	s := &sweeper{root: filepath.Join("..", "..", "testdata", "toy"), work: t.TempDir(), group: group{tests: []string{"./unit", scenarios}}, places: placesOn("")}
	if out, err := trial.Build(s.root, s.work, nil, scenarios); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	_, err := s.placeOf("no-such-label")
	if err == nil || !strings.Contains(err.Error(), "nothing matched") || !strings.Contains(err.Error(), "no-such-label") {
		t.Errorf("a mutant of a label no spec carries: %v, want an error naming the label, saying nothing matched", err)
	}
	p, err := s.placeOf("!no-such-label")
	if err != nil || p.name != "envtest" {
		t.Fatalf("the place of a label filter every spec passes: %q, %v; want envtest", p.name, err)
	}
	caught, _, _, err := s.tryMutant(filepath.Join(s.work, "all"), mutants.Mutant{Break: "b", Scenario: "!no-such-label"}, p)
	if err != nil || caught.Failed || caught.Ran != 3 {
		t.Errorf("a mutant of a label filter every spec passes: %+v, %v; want 3 specs run, passed", caught, err)
	}
}

// TestAMutantOfAManifestBreaksWhatTheScenariosRead: a mutant that edits a file the build cannot
// overlay (a manifest) is read by the scenarios as it edited it, and the file stays as it was.
func TestAMutantOfAManifestBreaksWhatTheScenariosRead(t *testing.T) {
	s := &sweeper{root: filepath.Join("..", "..", "testdata", "toy"), work: t.TempDir(), group: group{tests: []string{"./unit", scenarios}}, places: placesOn("")}
	manifest := filepath.Join(s.root, "manifest.txt")
	m := mutants.Mutant{Break: "the manifest is not as written", Scenario: "!no-such-label", Edits: []mutants.Edit{{File: "manifest.txt", From: "as written", To: "as broken"}}}
	caught, _, _, err := s.tryMutant(filepath.Join(s.work, "manifest"), m, s.places[0])
	if err != nil || !caught.Failed || caught.Test != "A spec reads the toy's manifest" {
		t.Errorf("a mutant of the manifest: %+v, %v; want the spec that reads it failed", caught, err)
	}
	if b, err := os.ReadFile(manifest); err != nil || string(b) != "as written\n" {
		t.Errorf("the manifest on disk: %q, %v; want it as written", b, err)
	}
}
