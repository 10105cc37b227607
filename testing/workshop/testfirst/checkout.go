package main

import (
	"errors"
	"fmt"
	"go/ast"
	"io/fs"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness/warm"
	"example.com/operator-demo/testing/workshop/specreport"
	"example.com/operator-demo/testing/workshop/specsource"
)

// production are the paths of the operator's code; api/, first, has the names a new spec may need.
var production = []string{"api", "controllers", "cmd", "config/crd"}

// wiring is the git pathspec of the scenarios' own code beside their specs (scenarios/samples: the
// operator as the suite runs it, wired from cmd/'s pieces, and the fixtures), tests aside: a
// scenario whose suite wires what the change adds to controllers/ runs against the base's
// behaviour as the base wires it.
const wiring = ":(glob)scenarios/**/*.go"

// productionSpec is the git pathspec of the production code under paths, tests aside.
func productionSpec(paths ...string) []string {
	return append([]string{"--", ":(exclude,glob)**/*_test.go"}, paths...)
}

// checkout is one tree that specs run in, written out of git, with its scenarios compiled.
type checkout struct {
	dir, warm             string // the tree, beside which its binaries and reports go; check.warm
	scenarios, uncompiled string // the compiled suite, or "" and what the compiler said
}

// checkOut writes rev into a tree, its production under paths from productionOf if given, and compiles its scenarios.
func (c check) checkOut(name, rev, productionOf string, paths ...string) (*checkout, error) {
	t := &checkout{dir: filepath.Join(c.work, name), warm: c.warm}
	if err := materialize(c.repo, t.dir, rev, productionOf, paths); err != nil {
		return nil, err
	}
	t.scenarios = t.dir + ".scenarios.test"
	// -e: every error, not the first ten, which may not hold the cause.
	if out, err := t.goCmd("test", "-c", "-gcflags=-e", "-o", t.scenarios, "./scenarios"); err != nil {
		t.scenarios, t.uncompiled = "", string(out)
	}
	return t, nil
}

// materialize writes rev into dir, its production under paths from productionOf if given, through
// an index of its own: the repository is untouched.
func materialize(repo, dir, rev, productionOf string, paths []string) error {
	steps := [][]string{{"read-tree", rev}}
	if productionOf != "" { // reset takes the index's production to productionOf's, removing what it lacks
		steps = append(steps, append([]string{"reset", "-q", productionOf}, productionSpec(paths...)...))
	}
	for _, args := range append(steps, []string{"checkout-index", "-a", "--prefix=" + filepath.ToSlash(dir) + "/"}) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, append(os.Environ(), "GIT_INDEX_FILE="+dir+".index")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// state is how a spec ended in one tree.
type state int

const (
	none       state = iota // not run there: no run was needed
	passed                  // ran and passed
	failed                  // ran and failed in its own body or setup
	uncompiled              // its package does not compile there
	broken                  // failed outside its body (suite setup, cleanup) or did not run: proves nothing
)

// outcome is how a spec ended in one tree, and the line that says why.
type outcome struct {
	state  state
	detail string
}

// runnable are the tiers a scenario can run on here, cheapest first: all but kind (Docker).
var runnable = slices.DeleteFunc(slices.Clone(tiers.All), func(t tiers.Tier) bool { return t.Provider == tiers.ProviderKind })

// environment is what a run of the scenarios sets to run on t.
func environment(t tiers.Tier) []string {
	if t.Provider == tiers.Envtest {
		return []string{tiers.Env + "=" + tiers.Envtest}
	}
	return []string{tiers.Env + "=" + tiers.E2E, tiers.ProviderEnv + "=" + t.Provider}
}

// goCmd runs the go subcommand in the tree; -trimpath lets the build cache serve every tree.
func (t *checkout) goCmd(subcommand string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{subcommand, "-trimpath"}, args...)...)
	cmd.Dir = t.dir
	return cmd.CombinedOutput()
}

// runAll runs specs, each tier's scenarios and each package's tests together: outcomes by key.
func (t *checkout) runAll(description string, specs []spec) (map[string]outcome, error) {
	out := map[string]outcome{}
	for _, s := range specs {
		if _, done := out[key(s)]; done || s.tier == "" {
			continue
		}
		group := slices.DeleteFunc(slices.Clone(specs), func(o spec) bool { return o.tier != s.tier || o.pkg != s.pkg })
		names := make([]string, len(group))
		for i, g := range group {
			names[i] = g.name
		}
		run := t.runScenarios
		if s.kind == unit {
			run = t.runUnitTests
		}
		results, compilerErrors, err := run(s, description, names)
		if err != nil {
			return nil, err
		}
		for _, g := range group {
			out[key(g)] = ended(g, results, compilerErrors)
		}
	}
	return out, nil
}

// runScenarios runs the specs named names on the tier of s: their results, or what the compiler said.
func (t *checkout) runScenarios(s spec, description string, names []string) ([]specreport.Result, string, error) {
	if t.uncompiled != "" {
		return nil, t.uncompiled, nil
	}
	env := environment(runnable[slices.IndexFunc(runnable, func(x tiers.Tier) bool { return x.Name == s.tier })])
	if manager := filepath.Join(t.dir, "bin", "manager"); s.tier != "envtest" { // the e2e tier runs cmd/, built
		if b, err := t.goCmd("build", "-o", manager, "./cmd"); err != nil {
			return nil, string(b), nil
		}
		env = append(env, "E2E_OPERATOR_BINARY="+manager)
	} else { // attached to make envtest-up's control plane if it is up, else starting their own
		env = append(env, warm.Env+"="+t.warm)
	}
	suite, err := t.runSuite(env, "run-"+s.tier, "-ginkgo.focus="+specreport.Focus(description, names))
	if err == nil && suite.Setup != nil {
		err = fmt.Errorf("the suite failed outside any spec in %s (%s), which proves nothing: %s", t.dir, suite.Setup.Name, suite.Setup.Where())
	}
	return suite.Specs, "", err
}

// runUnitTests runs the test functions named names of the package of s: their results, or what the compiler said.
func (t *checkout) runUnitTests(s spec, _ string, names []string) ([]specreport.Result, string, error) {
	events, runErr := t.goCmd("test", "-count=1", "-json", "-run=^"+specreport.AnyOf(names)+"$", s.pkg)
	tests, buildErrors, err := specreport.GoTest(events)
	if err != nil {
		return nil, "", errors.Join(err, runErr)
	}
	return tests.Specs, buildErrors, nil
}

// ended is how s ended, as what the compiler said or else the results say: one they leave out did not run.
func ended(s spec, results []specreport.Result, compilerErrors string) outcome {
	i := slices.IndexFunc(results, func(r specreport.Result) bool { return r.Name == s.name })
	switch {
	case compilerErrors != "":
		return outcome{uncompiled, "does not compile: " + specreport.CompilerCause(compilerErrors, s.file)}
	case i < 0:
	case results[i].Passed:
		return outcome{state: passed}
	case results[i].Failed() && results[i].InSpec:
		return outcome{failed, results[i].Where()}
	case results[i].Failed():
		return outcome{broken, "failed outside the spec: " + results[i].Where()}
	}
	return outcome{broken, "did not run"}
}

// runSuite runs the compiled scenarios from their directory, as go test does: failed specs are no error.
func (t *checkout) runSuite(env []string, name string, flags ...string) (specreport.Suite, error) {
	cmd := exec.Command(t.scenarios, append([]string{"-test.timeout=30m"}, flags...)...)
	cmd.Dir, cmd.Env = filepath.Join(t.dir, "scenarios"), append(os.Environ(), env...)
	suite, out, runErr, err := specreport.Run(cmd, t.dir+"."+name+".json", t.dir)
	if err != nil {
		err = fmt.Errorf("the scenarios in %s wrote no report (%w): %w\n%s", t.dir, runErr, err, e2e.Tail(string(out), 30))
	}
	return suite, err
}

const (
	// Characterization labels (a Go test: in its doc) a spec of behaviour the base has, saying why as characterizationForm.
	Characterization     = "characterization"
	characterizationForm = "`// Characterization: written after <what it pins>, when|because <why it came after the code>.`"
	// NoBreak starts the paragraph of a characterization spec's comment (a Go test's doc) that
	// states, as noBreakForm, which promise no break of the code it runs can reach: for a spec that
	// no break fails, shown for a reviewer.
	NoBreak     = "No break reaches it:"
	noBreakForm = "`// " + NoBreak + " <the promise it pins>, because <why no break of the code it runs can make it fail>.`"
	// RewriteTrailer, in a commit of the change, names a spec it rewrites; the table quotes the commit's subject.
	RewriteTrailer = "Spec-Rewrite"
	// RemovedTrailer, in a commit of the change, names a spec it removes (or renames: its old name);
	// the table quotes the commit's subject, the reason.
	RemovedTrailer = "Spec-Removed"

	added, changed, removed = "new", "changed", "removed" // what a change did to a spec
	scenario, unit          = "scenario", "unit"          // a spec's kind: a Ginkgo spec of scenarios/, or a unit test
)

// spec is a spec or test function as a tree holds it, and what the change does to it.
type spec struct {
	kind, pkg, name         string // name: the scenario's full text, or the test function's
	file, body              string // file: relative to the tree; body: as tokens, blind to comments and layout
	tier                    string // "unit", the first tier of runnable that runs the scenario's labels, or ""
	characterization        bool
	reason, change, rewrite string // its "Characterization:" paragraph; added, changed or removed; the commit stating its rewrite
	noBreak                 string // its paragraph "No break reaches it: …", whole, on one line
	removal                 string // the commit stating its removal
}

// key names a spec uniquely across kinds and packages.
func key(s spec) string { return s.pkg + " " + s.name }

// changedSpecs are the specs that head adds or changes, those it removes, and the scenario suite's
// description, as a dry run lists it.
func changedSpecs(base, head *checkout) (specs, gone []spec, description string, err error) {
	var trees [2][]spec
	for i, t := range []*checkout{base, head} {
		if t.uncompiled != "" {
			return nil, nil, "", fmt.Errorf("the %s's scenarios do not compile in %s: %s", filepath.Base(t.dir), t.dir, specreport.CompilerCause(t.uncompiled, ""))
		}
		suite, err := t.runSuite(environment(runnable[0]), "dry-run", "-ginkgo.dry-run")
		if err != nil {
			return nil, nil, "", fmt.Errorf("the %s's scenarios: %w", filepath.Base(t.dir), err)
		}
		if t == head { // the base's pending specs are the change's to write or remove
			if err := refusePending(suite.Specs); err != nil {
				return nil, nil, "", err
			}
		}
		scenarios, err := scenarioSpecs(t.dir, suite.Specs)
		units, unitsErr := unitTests(t.dir, "api", "controllers")
		if err := errors.Join(err, unitsErr); err != nil {
			return nil, nil, "", err
		}
		trees[i], description = append(scenarios, units...), suite.Description
	}
	return newOrChanged(trees[0], trees[1]), removedSpecs(trees[0], trees[1]), description, nil
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

// removedSpecs are the specs of base that head lacks, by key: removed, or renamed (by the old
// name); of specs that share a key, those past the number head keeps.
func removedSpecs(base, head []spec) []spec {
	kept := map[string]int{}
	for _, s := range head {
		kept[key(s)]++
	}
	var out []spec
	for _, s := range base {
		if kept[key(s)] > 0 {
			kept[key(s)]--
			continue
		}
		s.change = removed
		out = append(out, s)
	}
	return out
}

// scenarioSpecs are the specs a dry run of tree lists, each on the first tier of runnable that runs its labels.
func scenarioSpecs(tree string, listed []specreport.Result) ([]spec, error) {
	out := make([]spec, 0, len(listed))
	for _, r := range listed {
		f, err := specsource.Parse(filepath.Join(tree, r.File))
		body := ""
		if err == nil {
			body, err = f.Body(r.Line)
		}
		if err != nil {
			return nil, err
		}
		s := spec{kind: scenario, pkg: "./scenarios", name: r.Name, file: r.File, body: body,
			characterization: slices.Contains(r.Labels, Characterization), reason: characterizationReason(f.Comment(r.Line)), noBreak: noBreakStatement(f.Comment(r.Line))}
		if i := slices.IndexFunc(runnable, func(t tiers.Tier) bool { return t.Runs(r.Labels...) }); i >= 0 {
			s.tier = runnable[i].Name
		}
		out = append(out, s)
	}
	return out, nil
}

// unitTests are the functions TestX (but TestMain) of the _test.go files under dirs of the tree at root.
func unitTests(root string, dirs ...string) (out []spec, err error) {
	for _, dir := range dirs {
		err = errors.Join(err, filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := specsource.Parse(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") && fn.Name.Name != "TestMain" {
					doc := fn.Doc.Text()
					out = append(out, spec{kind: unit, pkg: "./" + filepath.ToSlash(filepath.Dir(rel)), name: fn.Name.Name, file: filepath.ToSlash(rel), body: f.Tokens(fn.Body), tier: "unit",
						characterization: strings.Contains(doc, "Characterization:"), reason: characterizationReason(doc), noBreak: noBreakStatement(doc)})
				}
			}
			return nil
		}))
	}
	return out, err
}

// characterizationReason is comment's paragraph "Characterization: <reason>" as the reason, on one line.
func characterizationReason(comment string) string {
	reason, _ := strings.CutPrefix(paragraph(comment, "Characterization:"), "Characterization:")
	return strings.TrimSpace(reason)
}

// noBreakStatement is comment's paragraph "No break reaches it: …", whole, on one line: "" if it has none.
func noBreakStatement(comment string) string {
	return paragraph(comment, NoBreak)
}

// paragraph is comment's first paragraph that starts with prefix, whole, on one line: "" if none does.
func paragraph(comment, prefix string) string {
	for para := range strings.SplitSeq(comment, "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(para), prefix) {
			return strings.Join(strings.Fields(para), " ")
		}
	}
	return ""
}

// statesWhy says whether a characterization reason is in characterizationForm.
func statesWhy(reason string) bool {
	after, ok := strings.CutPrefix(reason, "written after ")
	return ok && (strings.Contains(after, " when ") || strings.Contains(after, " because "))
}

// statesPromise says whether a statement that no break reaches a spec is in noBreakForm: a promise,
// then why, each in three words or more, the one not the other again, and no placeholder of the
// form left in.
func statesPromise(statement string) bool {
	after, ok := strings.CutPrefix(statement, NoBreak)
	promise, why, because := strings.Cut(after, " because ")
	p, w := words(promise), words(why)
	return ok && because && len(p) >= 3 && len(w) >= 3 && !slices.Equal(p, w) && !strings.ContainsAny(after, "<>")
}

// words are the words of text, lower case: its fields that hold a letter, without their punctuation.
func words(text string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(text)) {
		if f = strings.TrimFunc(f, unicode.IsPunct); strings.IndexFunc(f, unicode.IsLetter) >= 0 {
			out = append(out, f)
		}
	}
	return out
}

// applyRewrites marks each spec a trailer of log (as check.trailers formats it) names; the trailers naming none mislead, so fail.
func applyRewrites(specs []spec, log string) (stale []string) {
	return apply(specs, log, func(s *spec, statement string) { s.rewrite = statement },
		"%s states a rewrite of %q, which this change does not add or change ("+RewriteTrailer+": takes the spec's name as the table shows it)")
}

// applyRemovals marks each removed spec a trailer of log names; the trailers naming none mislead, so fail.
func applyRemovals(gone []spec, log string) (stale []string) {
	return apply(gone, log, func(s *spec, statement string) { s.removal = statement },
		"%s states the removal of %q, which this change does not remove ("+RemovedTrailer+": takes the spec's name as the table shows it)")
}

// apply marks each spec that a trailer of log names with the statement naming it; a statement that
// names none is stale, as the format unnamed says of its statement and name.
func apply(specs []spec, log string, mark func(*spec, string), unnamed string) (stale []string) {
	for statement, name := range statements(log) {
		found := false
		for i := range specs {
			if strings.TrimSpace(specs[i].name) == name { // git trims a trailer's value
				mark(&specs[i], statement)
				found = true
			}
		}
		if !found {
			stale = append(stale, fmt.Sprintf(unnamed, statement, name))
		}
	}
	return stale
}

// statements are the values of the trailers of log (as check.trailers formats it), each with its
// statement: the commit that carries it, and the commit's subject.
func statements(log string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for record := range strings.SplitSeq(log, "\x1e") {
			fields := strings.SplitN(record, "\x00", 3)
			if len(fields) != 3 {
				continue
			}
			statement := fmt.Sprintf("%s %q", fields[0], fields[1])
			for value := range strings.SplitSeq(fields[2], "\n") {
				if value = strings.TrimSpace(value); value != "" && !yield(statement, value) {
					return
				}
			}
		}
	}
}

// refusePending refuses the specs that a dry run lists as pending, each by its file:line.
func refusePending(listed []specreport.Result) error {
	var named []string
	for _, r := range listed {
		if r.Pending {
			named = append(named, fmt.Sprintf("%s:%d: %q", r.File, r.Line, r.Name))
		}
	}
	if len(named) == 0 {
		return nil
	}
	return fmt.Errorf("the head has %d pending spec(s): %s; %s", len(named), strings.Join(named, "; "), specreport.PendingGap)
}
