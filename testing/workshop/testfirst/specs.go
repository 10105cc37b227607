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

// Characterization is the Ginkgo label of a spec written for behaviour that already exists: a new
// one may pass against the base. A Go test says the same with a doc comment paragraph that starts
// "Characterization:". Either states its reason in that paragraph (of the comment just above the
// It, for a scenario), in the form of characterizationForm.
const Characterization = "characterization"

// characterizationForm is the form of a characterization spec's reason: what it pins, and why
// it was written after the code.
const characterizationForm = "`// Characterization: written after <what it pins>, when|because <why it came after the code>.`"

// What a change did to a spec.
const (
	added   = "new"
	changed = "changed"
)

// kind is what a spec is: a scenario (a Ginkgo spec of scenarios/) or a unit test.
type kind string

const (
	scenario kind = "scenario"
	unit     kind = "unit"
)

// spec is a spec or test function as a tree holds it, and what the change does to it.
type spec struct {
	kind kind
	// pkg is the package that holds it ("./scenarios", "./controllers").
	pkg string
	// name is the scenario's full text, or the test function's name.
	name string
	// file is the file that holds it, relative to the tree.
	file string
	// body is its source as tokens (specsource.Tokens): a change of comments or layout is none.
	body string
	// tier is where it can run here: "unit" for a unit test, a scenario's first tier of runnable
	// that its labels allow, or "" when none does.
	tier             string
	characterization bool
	// reason is the text of its "Characterization:" paragraph, on one line ("" when none).
	reason string
	// change is added (a spec the base lacks) or changed (its body differs from the base's).
	change string
	// rewrite is the commit that states, by a Spec-Rewrite trailer, that the change rewrites this
	// spec without changing what it proves ("" when none does): a changed spec may then pass
	// against the base, and the table shows the statement.
	rewrite string
}

// key names a spec uniquely across kinds and packages.
func key(s spec) string { return s.pkg + " " + s.name }

// changedSpecs are the specs, scenarios and unit tests, that head adds or changes. description
// is the scenario suite's, which Ginkgo's focus matches.
func changedSpecs(base, head *checkout) ([]spec, string, error) {
	baseScenarios, _, err := base.listScenarios()
	if err != nil {
		return nil, "", fmt.Errorf("the base's scenarios: %w", err)
	}
	headScenarios, description, err := head.listScenarios()
	if err != nil {
		return nil, "", fmt.Errorf("the head's scenarios: %w", err)
	}
	baseUnits, err := unitTests(base.dir, "api", "controllers")
	if err != nil {
		return nil, "", err
	}
	headUnits, err := unitTests(head.dir, "api", "controllers")
	if err != nil {
		return nil, "", err
	}
	return newOrChanged(append(baseScenarios, baseUnits...), append(headScenarios, headUnits...)), description, nil
}

// newOrChanged are the specs of head that base lacks, by key, or has with another body.
func newOrChanged(base, head []spec) []spec {
	before := map[string]string{}
	for _, s := range base {
		if _, ok := before[key(s)]; !ok {
			before[key(s)] = s.body
		}
	}
	out := make([]spec, 0, len(head))
	for _, s := range head {
		body, existed := before[key(s)]
		switch {
		case existed && body == s.body:
			continue
		case existed:
			s.change = changed
		default:
			s.change = added
		}
		out = append(out, s)
	}
	return out
}

// dryRun is what a dry run of the scenarios on a tier listed: every spec, those the tier runs
// as passed.
type dryRun struct {
	tier  string
	suite specreport.Suite
}

// scenarioSpecs are the scenario specs of tree that its dry runs list, each with its body, the
// tier it runs on here (the first dry run that passed it) and whether it is labelled
// characterization.
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

// unitTests are the test functions (func TestX(t *testing.T)) in the _test.go files under dirs of
// the tree at root, with their bodies as tokens.
func unitTests(root string, dirs ...string) ([]spec, error) {
	var out []spec
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			tests, err := testFuncs(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			for i := range tests {
				tests[i].pkg = "./" + filepath.ToSlash(filepath.Dir(rel))
				tests[i].file = filepath.ToSlash(rel)
			}
			out = append(out, tests...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func testFuncs(path string) ([]spec, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []spec
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
			continue
		}
		doc := fn.Doc.Text()
		out = append(out, spec{kind: unit, name: fn.Name.Name, body: specsource.Tokens(fset, src, fn.Body), tier: "unit",
			characterization: strings.Contains(doc, "Characterization:"), reason: characterizationReason(doc)})
	}
	return out, nil
}

// characterizationReason is the paragraph of comment that starts "Characterization:", without
// that word, on one line ("" when there is none).
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

// fileExists says whether path names a file or directory.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
