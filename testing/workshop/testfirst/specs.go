package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"example.com/operator-demo/testing/workshop/specreport"
	"example.com/operator-demo/testing/workshop/specsource"
)

const (
	// Characterization is the Ginkgo label (for a Go test, the doc comment paragraph) of a spec of
	// behaviour the base has, which may pass there; that paragraph says why, in characterizationForm.
	Characterization     = "characterization"
	characterizationForm = "`// Characterization: written after <what it pins>, when|because <why it came after the code>.`"
	// RewriteTrailer, in a commit of the change, names a spec it rewrites (a refactor, a rename or
	// split, a spec the new behaviour obliges to change); the table quotes the commit's subject.
	RewriteTrailer = "Spec-Rewrite"

	added, changed = "new", "changed"   // what a change did to a spec
	scenario, unit = "scenario", "unit" // a spec's kind: a Ginkgo spec of scenarios/, or a unit test
)

// spec is a spec or test function as a tree holds it, and what the change does to it.
type spec struct {
	kind, pkg, name string // name: the scenario's full text, or the test function's
	file            string // relative to the tree
	body            string // its source as tokens: a change of comments or layout is none
	// tier is "unit", a scenario's first tier of runnable that its labels allow, or "" when none.
	tier             string
	characterization bool
	reason           string // its "Characterization:" paragraph, on one line
	change           string // added or changed
	rewrite          string // the commit that states its rewrite, or ""
}

// key names a spec uniquely across kinds and packages.
func key(s spec) string { return s.pkg + " " + s.name }

// changedSpecs are the specs that head adds or changes, and the scenario suite's description.
func changedSpecs(base, head *checkout) (specs []spec, description string, err error) {
	var trees [2][]spec
	for i, t := range []*checkout{base, head} {
		scenarios, d, err := t.listScenarios()
		if err != nil {
			return nil, "", fmt.Errorf("the %s's scenarios: %w", filepath.Base(t.work), err)
		}
		units, err := unitTests(t.dir, "api", "controllers")
		if err != nil {
			return nil, "", err
		}
		trees[i], description = append(scenarios, units...), d
	}
	return newOrChanged(trees[0], trees[1]), description, nil
}

// newOrChanged are the specs of head that base lacks, by key, or has with another body.
func newOrChanged(base, head []spec) []spec {
	before := map[string]string{}
	for _, s := range slices.Backward(base) {
		before[key(s)] = s.body
	}
	out := make([]spec, 0, len(head))
	for _, s := range head {
		body, existed := before[key(s)]
		if s.change = added; existed {
			s.change = changed
		}
		if !existed || body != s.body {
			out = append(out, s)
		}
	}
	return out
}

// dryRun is a dry run of the scenarios on a tier: every spec, those it runs passed.
type dryRun struct {
	tier  string
	suite specreport.Suite
}

// scenarioSpecs are the scenario specs that the dry runs of tree list, each on the first tier that
// passed it.
func scenarioSpecs(tree string, dryRuns []dryRun) ([]spec, error) {
	var out []spec
	index := map[string]int{}
	for _, d := range dryRuns {
		for _, r := range d.suite.Specs {
			i, listed := index[r.Name]
			if !listed {
				body, comment, err := specsource.Body(filepath.Join(tree, r.File), r.Line)
				if err != nil {
					return nil, err
				}
				i, index[r.Name] = len(out), len(out)
				out = append(out, spec{kind: scenario, pkg: "./scenarios", name: r.Name, file: r.File, body: body,
					characterization: slices.Contains(r.Labels, Characterization), reason: characterizationReason(comment)})
			}
			if r.Passed && out[i].tier == "" {
				out[i].tier = d.tier
			}
		}
	}
	return out, nil
}

// unitTests are the test functions in the _test.go files under dirs of the tree at root.
func unitTests(root string, dirs ...string) (out []spec, err error) {
	for _, dir := range dirs {
		err = errors.Join(err, filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			tests, err := testFuncs(path)
			rel, _ := filepath.Rel(root, path)
			for i := range tests {
				tests[i].pkg, tests[i].file = "./"+filepath.ToSlash(filepath.Dir(rel)), filepath.ToSlash(rel)
			}
			out = append(out, tests...)
			return err
		}))
	}
	return out, err
}

// testFuncs are the functions TestX (but TestMain) of the file at path.
func testFuncs(path string) ([]spec, error) {
	fset := token.NewFileSet()
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []spec
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") && fn.Name.Name != "TestMain" {
			doc := fn.Doc.Text()
			out = append(out, spec{kind: unit, name: fn.Name.Name, body: specsource.Tokens(fset, src, fn.Body), tier: "unit",
				characterization: strings.Contains(doc, "Characterization:"), reason: characterizationReason(doc)})
		}
	}
	return out, nil
}

// characterizationReason is comment's paragraph "Characterization: <reason>" as the reason, on one line.
func characterizationReason(comment string) string {
	for para := range strings.SplitSeq(comment, "\n\n") {
		if reason, ok := strings.CutPrefix(strings.TrimSpace(para), "Characterization:"); ok {
			return strings.Join(strings.Fields(reason), " ")
		}
	}
	return ""
}

// statesWhy says whether a characterization reason is in characterizationForm.
func statesWhy(reason string) bool {
	after, ok := strings.CutPrefix(reason, "written after ")
	return ok && (strings.Contains(after, " when ") || strings.Contains(after, " because "))
}

// applyRewrites marks each spec that a trailer of log (commits as run formats them) names, and
// returns the trailers that name none: a statement for nothing misleads the reviewer, so it fails.
func applyRewrites(specs []spec, log string) (stale []string) {
	for record := range strings.SplitSeq(log, "\x1e") {
		fields := strings.SplitN(record, "\x00", 3)
		if len(fields) != 3 {
			continue
		}
		statement := fmt.Sprintf("%s %q", fields[0], fields[1])
		for name := range strings.SplitSeq(fields[2], "\n") {
			if name = strings.TrimSpace(name); name == "" {
				continue
			}
			found := false
			for i := range specs {
				if specs[i].name == name {
					specs[i].rewrite, found = statement, true
				}
			}
			if !found {
				stale = append(stale, fmt.Sprintf("%s states a rewrite of %q, which this change does not add or change (%s: takes the spec's name as the table shows it)",
					statement, name, RewriteTrailer))
			}
		}
	}
	return stale
}
