package main

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"example.com/operator-demo/testing/workshop/specsource"
)

// Characterization is the Ginkgo label of a spec written for behaviour that already exists: it
// may pass against the base. A Go test says the same with a doc comment paragraph that starts
// "Characterization:".
const Characterization = "characterization"

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

// spec is a spec or test function that the change adds or changes.
type spec struct {
	kind kind
	// pkg is the package that holds it ("./scenarios", "./controllers").
	pkg string
	// name is the scenario's full text, or the test function's name.
	name string
	// change is added (a spec the base lacks) or changed (its body differs from the base's).
	change string
	// file is the file that holds it, relative to the tree.
	file string
	// tier is where it can run here: "envtest", "e2e local" (tiers.All's names), or "" when neither runs it.
	tier             string
	characterization bool
	// rewrite is the commit that states, by a Spec-Rewrite trailer, that the change rewrites this
	// spec without changing what it proves ("" when none does): a changed spec may then pass
	// against the base, and the table shows the statement.
	rewrite string
}

// scenarioSpec is one Ginkgo spec as a dry run lists it, with the source of its body.
type scenarioSpec struct {
	name   string
	file   string
	labels []string
	body   string
	// tiers are the tiers whose label filter lets it run.
	tiers []string
}

// changedScenarios are the specs of head that base does not have, by full text, or has with
// another body.
func changedScenarios(base, head []scenarioSpec) []spec {
	before := map[string]string{}
	for _, s := range base {
		if _, ok := before[s.name]; !ok {
			before[s.name] = s.body
		}
	}
	var out []spec
	for _, s := range head {
		body, existed := before[s.name]
		if existed && body == s.body {
			continue
		}
		sp := spec{kind: scenario, pkg: "./scenarios", name: s.name, file: s.file, change: added, characterization: slices.Contains(s.labels, Characterization)}
		if existed {
			sp.change = changed
		}
		if len(s.tiers) > 0 {
			sp.tier = s.tiers[0]
		}
		out = append(out, sp)
	}
	return out
}

// unitTest is a test function as its source has it.
type unitTest struct {
	pkg, file, name, body string
	characterization      bool
}

// unitTests are the test functions (func TestX(t *testing.T)) in the _test.go files under dirs of
// the tree at root, with their bodies printed from the syntax tree.
func unitTests(root string, dirs ...string) ([]unitTest, error) {
	var out []unitTest
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

func testFuncs(path string) ([]unitTest, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []unitTest
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
			continue
		}
		out = append(out, unitTest{name: fn.Name.Name, body: specsource.Tokens(fset, src, fn.Body), characterization: isCharacterization(fn.Doc)})
	}
	return out, nil
}

// isCharacterization: a paragraph of the doc comment starts "Characterization:".
func isCharacterization(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for para := range strings.SplitSeq(doc.Text(), "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(para), "Characterization:") {
			return true
		}
	}
	return false
}

// changedUnitTests are the test functions of head that base lacks, or has with another body.
func changedUnitTests(base, head []unitTest) []spec {
	before := map[string]string{}
	for _, t := range base {
		before[t.pkg+"."+t.name] = t.body
	}
	var out []spec
	for _, t := range head {
		body, existed := before[t.pkg+"."+t.name]
		if existed && body == t.body {
			continue
		}
		s := spec{kind: unit, pkg: t.pkg, file: t.file, name: t.name, change: added, tier: "unit", characterization: t.characterization}
		if existed {
			s.change = changed
		}
		out = append(out, s)
	}
	return out
}

// readScenarioSpecs reads a dry run's specs and the source of each one's body from tree.
func readScenarioSpecs(tree string, listed []listedSpec) ([]scenarioSpec, error) {
	out := make([]scenarioSpec, 0, len(listed))
	for _, l := range listed {
		body, err := specsource.Body(filepath.Join(tree, l.file), l.line)
		if err != nil {
			return nil, err
		}
		out = append(out, scenarioSpec{name: l.name, file: l.file, labels: l.labels, body: body, tiers: l.tiers})
	}
	return out, nil
}

// listedSpec is a spec as the suite's dry runs list it, on every tier.
type listedSpec struct {
	name   string
	labels []string
	file   string
	line   int
	tiers  []string
}

// fileExists says whether path names a file or directory.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
