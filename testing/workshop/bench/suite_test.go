package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTheREADMEQuotesMakeBenchSuite: the README's make test time is what make bench-suite last
// measured, as BENCHMARKS.md shows it, not a figure written from memory.
func TestTheREADMEQuotesMakeBenchSuite(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		content, err := os.ReadFile(filepath.Join("..", "..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		_, rest, found := strings.Cut(string(content), "<!-- make bench-suite -->\n")
		written, _, closed := strings.Cut(rest, "<!-- /make bench-suite -->")
		if !found || !closed || strings.TrimSpace(written) == "" {
			t.Fatalf("%s has no figures of make bench-suite between its markers: run make bench-suite", name)
		}
		return written
	}
	readme := regexp.MustCompile("`make test` takes about ([0-9.]+) s warm, ([0-9.]+)×").FindStringSubmatch(read("README.md"))
	table := regexp.MustCompile("\\| `make test` [^|]*\\| ([0-9.]+) s \\|[^|]*\\| ([0-9.]+)×").FindStringSubmatch(read("BENCHMARKS.md"))
	if readme == nil || table == nil {
		t.Fatalf("no make test time in the README (%v) or in BENCHMARKS.md's table (%v)", readme, table)
	}
	if readme[1] != table[1] || readme[2] != table[2] {
		t.Errorf("the README says make test takes %s s (%s×), make bench-suite measured %s s (%s×)", readme[1], readme[2], table[1], table[2])
	}
}
