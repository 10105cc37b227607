package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCatalogueIsCurrent: the committed catalogue is exactly what the specs generate.
func TestCatalogueIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "scenarios")
	scenarios, err := read(dir)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("specs the catalogue cannot render: %v", problems)
	}
	if string(render(scenarios)) != string(committed) {
		t.Error("scenarios/README.md is stale: run `make catalogue` and commit it")
	}
	for _, s := range scenarios {
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
		"Create: x\n\nLesson: y\n\nSource: the seed article, §10\n\nBy hand:\n\n\tkubectl get samples\n",
	} {
		if _, err := parseDoc(bad); err == nil {
			t.Errorf("parseDoc(%q) accepted it", bad)
		}
	}
}
