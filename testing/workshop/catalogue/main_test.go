package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCatalogueIsCurrent: the committed catalogue is exactly what the code generates.
func TestCatalogueIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "scenarios")
	c, err := build(dir)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(c.render()) != string(committed) {
		t.Error("scenarios/README.md is stale: run `make catalogue` and commit it")
	}
	for _, s := range c.scenarios {
		if len(s.specs) == 0 {
			t.Errorf("scenario %q (%s) has no specs", s.title, s.file)
		}
	}
}

func TestParseDoc(t *testing.T) {
	doc := "Create: a new Sample\ngets a ConfigMap.\n\nLesson: owner\nreferences.\n\nSource: the Kubernetes Operator lecture notes, §3: it\nappears.\n\nBy hand:\n\n\tkubectl get samples\n"
	s, err := parseDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	if s.title != "Create" || s.behaviour != "a new Sample gets a ConfigMap." || s.lesson != "Owner references." || s.source.short != "Lecture notes" || s.where != "§3: it appears." {
		t.Errorf("parsed %+v", s)
	}
	if got := byHand(s.byHand); got != "By hand:\n\n```sh\nkubectl get samples\n```\n" {
		t.Errorf("by hand rendered as %q", got)
	}
	for _, bad := range []string{
		"Create: one paragraph only",
		"No title here\n\nLesson: x\n\nSource: beyond both sources: y\n\nBy hand:\n",
		"Create: x\n\nLesson: but nothing else",
		"Create: x\n\nLesson: y\n\nSource: an unknown article, §10\n\nBy hand:\n\n\tkubectl get samples\n",
	} {
		if _, err := parseDoc(bad); err == nil {
			t.Errorf("parseDoc(%q) accepted it", bad)
		}
	}
}

// TestWatchesAreReadFromTheController: the diagram's watches are the controller's own.
func TestWatchesAreReadFromTheController(t *testing.T) {
	got, err := watches(filepath.Join("..", "..", "..", "controllers"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("watches = %+v, want For Sample and Owns ConfigMap", got)
	}
	sample, configMap := got[0], got[1]
	if sample.how != "For" || sample.kind != "Sample" || len(sample.events) != 3 || !strings.Contains(sample.events[1], "metadata.generation") {
		t.Errorf("the Sample's watch read as %+v", sample)
	}
	if configMap.how != "Owns" || configMap.kind != "ConfigMap" || !slices.Equal(configMap.events, []string{"its updates", "its deletion"}) {
		t.Errorf("the ConfigMap's watch read as %+v", configMap)
	}
}

// TestEveryReasonSaysWhatToDo: the reasons come from the API's documented constants, and each
// reason of Ready=False says what to do about it.
func TestEveryReasonSaysWhatToDo(t *testing.T) {
	got, err := reasons(filepath.Join("..", "..", "..", "api"))
	if err != nil {
		t.Fatal(err)
	}
	values := make([]string, 0, len(got))
	for _, r := range got {
		values = append(values, r.value)
		if r.what == "" || (r.ready == "False") != (r.todo != "") {
			t.Errorf("reason %s (Ready=%s): what happened %q, what to do %q", r.value, r.ready, r.what, r.todo)
		}
	}
	for _, want := range []string{"Synced", "ConfigMapConflict", "ConfigMapRefused", "QuotaExceeded", "ConfigMapForbidden"} {
		if !slices.Contains(values, want) {
			t.Errorf("reasons %v lack %s", values, want)
		}
	}
}

// TestNewScenarioWritesTheHouseForm: the skeleton has every field the catalogue reads, a spec
// that fails until it is written, and its label in the reading order.
func TestNewScenarioWritesTheHouseForm(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, readingOrderFile), []byte("# order\ncreate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := newScenario(dir, "paused-sample"); err != nil {
		t.Fatal(err)
	}
	r := &reader{}
	found, err := r.file(filepath.Join(dir, "paused_sample_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.problems) > 0 || len(found) != 1 || found[0].title != "Paused sample" || len(found[0].specs) != 1 || !slices.Equal(found[0].labels, []string{"paused-sample"}) {
		t.Errorf("the skeleton reads as %+v (problems %v)", found, r.problems)
	}
	content, err := os.ReadFile(filepath.Join(dir, "paused_sample_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(content), "Fail(") {
		t.Error("the skeleton's spec does not fail until it is written")
	}
	if order, err := readingOrder(filepath.Join(dir, readingOrderFile)); err != nil || !slices.Equal(order, []string{"create", "paused-sample"}) {
		t.Errorf("reading order %v, %v: want paused-sample added", order, err)
	}
	for _, bad := range []string{"paused-sample", "Paused", "two words", "-x"} {
		if err := newScenario(dir, bad); err == nil {
			t.Errorf("newScenario(%q) accepted it", bad)
		}
	}
}
