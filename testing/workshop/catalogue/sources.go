package main

import (
	"fmt"
	"strings"
)

// source is a document the scenarios come from.
type source struct {
	// name is how a scenario's Source: paragraph begins; short is the catalogue's column.
	name, Short string
	// about says what the document is and what the project takes from it.
	about string
}

// sources are the documents a scenario may name, in the order the catalogue lists them.
var sources = []source{
	{
		name:  "the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in Japanese)",
		Short: "Article",
		about: "resources, controllers, the API server and the reconcile loop, then a kubebuilder walkthrough (§10) of this very operator on a kind cluster; `make demo` follows that walkthrough",
	},
	{
		name:  "the Kubernetes Operator lecture notes",
		Short: "Lecture notes",
		about: "operators in production (leader election, rate limiting, concurrency, cache scoping, metrics), the test pyramid (unit, envtest, kind), and the failures operators commonly have: status updates that loop, children leaked without owner references, errors swallowed, watches missing",
	},
	{
		name:  "beyond both sources",
		Short: "Beyond both",
		about: "what an operator that others rely on must do as well, which neither document shows",
	},
}

// Describe is the source's entry in the catalogue's list of sources.
func (src source) Describe() string {
	if src.name == sources[len(sources)-1].name {
		return src.about
	}
	return src.name + ": " + src.about
}

// parseSource splits a Source: paragraph into the source it names and where in that source.
func parseSource(text string) (source, string, error) {
	for _, src := range sources {
		if where, ok := strings.CutPrefix(text, src.name); ok {
			return src, capitalise(strings.TrimLeft(where, ",: ")), nil
		}
	}
	names := make([]string, len(sources))
	for i, src := range sources {
		names[i] = fmt.Sprintf("%q", src.name)
	}
	return source{}, "", fmt.Errorf("the Source: paragraph %q names none of the sources; it begins with one of %s", text, strings.Join(names, ", "))
}
