// Package links checks that every relative link of the repository's Markdown pages resolves: the
// file or directory it names exists, and so does its anchor, a heading of a Markdown page (as
// GitHub names it) or a line of any other file (#L12). `make verify` runs it. It has no code of its
// own: only this test.
package links

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// pages are the Markdown pages a reader follows from the README, relative to the repository's root.
func pages(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, 4+len(docs))
	out = append(out, "README.md", "BENCHMARKS.md", "testing/README.md", "scenarios/README.md")
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
	var broken []string
	for _, page := range pages {
		for n, line := range prose(t, filepath.Join(root, page)) {
			for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				if strings.Contains(m[1], "://") || strings.HasPrefix(m[1], "mailto:") {
					continue
				}
				if why := resolve(t, filepath.Join(root, filepath.Dir(page)), page, m[1]); why != "" {
					broken = append(broken, fmt.Sprintf("%s:%d: %s: %s", page, n+1, m[1], why))
				}
			}
		}
	}
	return broken
}

var (
	link     = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan = regexp.MustCompile("`[^`]*`")
	heading  = regexp.MustCompile(`^#{1,6}\s+(.*?)[\s#]*$`)
	htmlID   = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	lineRef  = regexp.MustCompile(`^L([0-9]+)(?:-L([0-9]+))?$`)
)

// resolve says why target, a link of page found in dir, does not resolve, or "" if it does.
func resolve(t *testing.T, dir, page, target string) string {
	t.Helper()
	path, anchor, _ := strings.Cut(target, "#")
	file := filepath.Join(dir, filepath.FromSlash(path))
	if path == "" {
		file = filepath.Join(dir, filepath.Base(page))
	}
	if _, err := os.Stat(file); err != nil {
		return "no such file"
	}
	switch lines := lineRef.FindStringSubmatch(anchor); {
	case anchor == "":
		return ""
	case strings.HasSuffix(file, ".md"):
		if !slices.Contains(anchors(t, file), anchor) {
			return "no such heading"
		}
	case lines != nil:
		content, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		count := strings.Count(string(content), "\n")
		if !strings.HasSuffix(string(content), "\n") {
			count++
		}
		for _, l := range lines[1:] {
			if n, _ := strconv.Atoi(l); n > count {
				return fmt.Sprintf("the file has %d lines", count)
			}
		}
	default:
		return "an anchor of a file that is not Markdown names a line: #L12"
	}
	return ""
}

// anchors are the fragments GitHub gives the Markdown file's headings and HTML anchors.
func anchors(t *testing.T, file string) []string {
	t.Helper()
	var out []string
	seen := map[string]int{}
	for _, line := range prose(t, file) {
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, link.ReplaceAllString(m[1], ""))
		if n := seen[slug]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", slug, n))
		} else {
			out = append(out, slug)
		}
		seen[slug]++
	}
	return out
}

// prose is the file's lines, each fenced code block's lines blank.
func prose(t *testing.T, file string) []string {
	t.Helper()
	content, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(content), "\n")
	fenced := false
	for i, line := range lines {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```") || strings.HasPrefix(strings.TrimSpace(line), "~~~")
		if fenced || fence {
			lines[i] = ""
		}
		if fence {
			fenced = !fenced
		}
	}
	return lines
}
