// Package links checks that every relative link of the repository's Markdown pages resolves: the
// file or directory it names exists, and so does its anchor, a heading of a Markdown page (as
// GitHub names it) or a line of any other file (#L12). `make verify` runs it. It has no code of its
// own: only this test.
package links

import (
	"path/filepath"
	"slices"
	"testing"
)

// pages are the Markdown pages a reader follows from the README, relative to the repository's root.
func pages(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md", "BENCHMARKS.md", "testing/README.md", "scenarios/README.md"}
	for _, doc := range docs {
		rel, _ := filepath.Rel(root, doc)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func TestEveryLinkResolves(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	for _, broken := range brokenLinks(t, root, pages(t, root)) {
		t.Error(broken)
	}
}

// TestABrokenLinkIsFound: the check finds each way a link breaks, and nothing else.
func TestABrokenLinkIsFound(t *testing.T) {
	got := brokenLinks(t, "testdata", []string{"README.md", "docs/page.md"})
	want := []string{
		"README.md:19: docs/missing.md: no such file",
		"README.md:19: docs/page.md#no-such-heading: no such heading",
		"README.md:20: #nowhere: no such heading",
		"README.md:20: docs/code.go#L4: the file has 3 lines",
	}
	if !slices.Equal(got, want) {
		t.Errorf("broken links:\n%q\nwant:\n%q", got, want)
	}
}

// brokenLinks lists, as "page:line: target: why", each link of pages (relative to root) that does
// not resolve.
func brokenLinks(t *testing.T, root string, pages []string) []string {
	t.Helper()
	return nil
}
