package main

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness/warm"
	"example.com/operator-demo/testing/workshop/mutate/sweep"
	"example.com/operator-demo/testing/workshop/mutate/sweeper"
	"example.com/operator-demo/testing/workshop/repo"
	"example.com/operator-demo/testing/workshop/specreport"
	"example.com/operator-demo/testing/workshop/specsource"
)

// TestNewOrChangedAreNewNamesAndChangedBodies: a spec is new when the base has none of its name
// in its package, changed when the base's has another body; the same body is no change.
func TestNewOrChangedAreNewNamesAndChangedBodies(t *testing.T) {
	base := []spec{
		{kind: scenario, pkg: "./scenarios", name: "Sample when created it creates", body: "a"},
		{kind: scenario, pkg: "./scenarios", name: "Sample when edited it restores", body: "b"},
		{kind: unit, pkg: "./controllers", name: "TestDesired", body: "c"},
	}
	head := []spec{
		{kind: scenario, pkg: "./scenarios", name: "Sample when created it creates", body: "a"},
		{kind: scenario, pkg: "./scenarios", name: "Sample when edited it restores", body: "b2"},
		{kind: unit, pkg: "./controllers", name: "TestDesired", body: "c"},
		{kind: unit, pkg: "./api/v1alpha1", name: "TestDesired", body: "c"},
	}
	got := newOrChanged(base, head)
	want := []spec{
		{kind: scenario, pkg: "./scenarios", name: "Sample when edited it restores", body: "b2", change: changed},
		{kind: unit, pkg: "./api/v1alpha1", name: "TestDesired", body: "c", change: added},
	}
	if !slices.Equal(got, want) {
		t.Errorf("new or changed:\n got %+v\nwant %+v", got, want)
	}
}

// TestAScenarioRunsOnTheFirstTierThatRunsItsLabels: each spec that the dry run lists, with its
// body from its source, the first tier that runs its labels (none when none does), and whether it
// is labelled characterization.
func TestAScenarioRunsOnTheFirstTierThatRunsItsLabels(t *testing.T) {
	tree := t.TempDir()
	const source = "package scenarios\n\nvar _ = Describe(\"Sample\", func() {\n\t// Characterization: written after create,\n\t// when x.\n\tIt(\"creates\", func() { create() })\n\tIt(\"is collected\", func() { collect() })\n\tIt(\"dies\", func() { kill() })\n})\n"
	if err := os.MkdirAll(filepath.Join(tree, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "scenarios", "x_test.go"), []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	listed := func(name string, line int, labels ...string) specreport.Result {
		return specreport.Result{Name: name, File: "scenarios/x_test.go", Line: line, Labels: labels}
	}
	got, err := scenarioSpecs(tree, []specreport.Result{listed("Sample creates", 6, Characterization),
		listed("Sample is collected", 7, tiers.NeedsGarbageCollector), listed("Sample dies", 8, tiers.NeedsKill, tiers.NeedsInProcessOperator)})
	if err != nil {
		t.Fatal(err)
	}
	want := []spec{
		{kind: scenario, pkg: "./scenarios", file: "scenarios/x_test.go", name: "Sample creates", body: `It ( "creates" , func ( ) { create ( ) } )`, tier: "envtest", characterization: true, reason: "written after create, when x."},
		{kind: scenario, pkg: "./scenarios", file: "scenarios/x_test.go", name: "Sample is collected", body: `It ( "is collected" , func ( ) { collect ( ) } )`, tier: "e2e local"},
		{kind: scenario, pkg: "./scenarios", file: "scenarios/x_test.go", name: "Sample dies", body: `It ( "dies" , func ( ) { kill ( ) } )`},
	}
	if !slices.Equal(got, want) {
		t.Errorf("scenario specs:\n got %+v\nwant %+v", got, want)
	}
}

func TestChangedUnitTests(t *testing.T) {
	dir := t.TempDir()
	mustWrite := func(rel, content string) {
		t.Helper()
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite("base/controllers/a_test.go", "package controllers\n\nfunc TestKept(t *testing.T) { t.Log(1) }\n\nfunc TestEdited(t *testing.T) { t.Log(1) }\n")
	mustWrite("head/controllers/a_test.go", "package controllers\n\n// TestKept, with a comment now.\nfunc TestKept(t *testing.T) { t.Log(1) }\n\nfunc TestEdited(t *testing.T) { t.Log(2) }\n\n"+
		"// TestOld describes what the base does already.\n//\n// Characterization: written after the base had it,\n// when this test came.\nfunc TestOld(t *testing.T) {}\n\nfunc helper(t *testing.T) {}\n")
	base, err := unitTests(filepath.Join(dir, "base"), "controllers")
	if err != nil {
		t.Fatal(err)
	}
	head, err := unitTests(filepath.Join(dir, "head"), "controllers")
	if err != nil {
		t.Fatal(err)
	}
	got := newOrChanged(base, head)
	for i := range got {
		got[i].body = ""
	}
	want := []spec{
		{kind: unit, pkg: "./controllers", file: "controllers/a_test.go", name: "TestEdited", change: "changed", tier: "unit"},
		{kind: unit, pkg: "./controllers", file: "controllers/a_test.go", name: "TestOld", change: "new", tier: "unit", characterization: true, reason: "written after the base had it, when this test came."},
	}
	if !slices.Equal(got, want) {
		t.Errorf("changed unit tests:\n got %+v\nwant %+v", got, want)
	}
}

func TestJudge(t *testing.T) {
	red := outcome{failed, "checking: Expected 1 to equal 2 (scenarios/x_test.go:3)"}
	green := outcome{state: passed}
	uncompiledBase := outcome{uncompiled, "does not compile: x.go:1: undefined: Y"}
	broke := outcome{broken, "failed outside the spec"}
	notRun := outcome{}
	const statement = "abc1234 \"skip-when-equal keeps others' annotations\""
	tests := []struct {
		name             string
		change           string
		characterization bool
		rewrite          string
		tier             string
		base, withAPI    outcome
		wired, head      outcome
		wantTick         string
		wantVerdict      string
	}{
		{"red at the base, green at the head", added, false, "", "envtest", red, notRun, notRun, green, "✅", "written first"},
		{"does not compile against the base, red with the head's api/", added, false, "", "unit", uncompiledBase, red, notRun, green, "✅", "written first: red against the base's behaviour with the head's api/"},
		{"a unit test that does not compile against the base, even with the head's api/", added, false, "", "unit", uncompiledBase, uncompiledBase, notRun, green, "✅", "written first: does not compile against the base, even with the head's api/"},
		{"a scenario that does not compile against the base, even with the head's api/, nor as the base wires it", added, false, "", "envtest", uncompiledBase, uncompiledBase, uncompiledBase, green, "❌", "never seen red"},
		{"a scenario that does not compile against the base, even with the head's api/, red as the base wires it", added, false, "", "envtest", uncompiledBase, uncompiledBase, red, green, "✅", "written first: red against the base's behaviour with the head's api/, as the base wires its scenarios"},
		{"the same, green as the base wires it", added, false, "", "envtest", uncompiledBase, uncompiledBase, green, green, "❌", "passes against the base's behaviour once given the head's api/ names, as the base wires its scenarios"},
		{"the same, green as the base wires it, labelled characterization", added, true, "", "envtest", uncompiledBase, uncompiledBase, green, green, "✅", "characterization"},
		{"the same, broken as the base wires it", added, false, "", "envtest", uncompiledBase, uncompiledBase, broke, green, "❌", "as the base wires its scenarios, proves nothing"},
		{"the same, with a rewrite stated", changed, false, statement, "envtest", uncompiledBase, uncompiledBase, uncompiledBase, green, "⚠️", statement},
		{"does not compile against the base, green with the head's api/", added, false, "", "envtest", uncompiledBase, green, notRun, green, "❌", "passes against the base's behaviour once given the head's api/"},
		{"green with the head's api/, labelled characterization", added, true, "", "envtest", uncompiledBase, green, notRun, green, "✅", "characterization"},
		{"changed, green with the head's api/, a rewrite stated", changed, false, statement, "envtest", uncompiledBase, green, notRun, green, "⚠️", statement},
		{"does not compile against the base, broken with the head's api/", added, false, "", "envtest", uncompiledBase, broke, notRun, green, "❌", "proves nothing"},
		{"green at the base", added, false, "", "envtest", green, notRun, notRun, green, "❌", "passed at the base"},
		{"green at the base, labelled characterization", added, true, "", "envtest", green, notRun, notRun, green, "✅", "characterization"},
		{"changed, green at the base, a rewrite stated", changed, false, statement, "envtest", green, notRun, notRun, green, "⚠️", statement},
		{"changed, green at the base, no rewrite stated", changed, false, "", "envtest", green, notRun, notRun, green, "❌", "Spec-Rewrite"},
		{"new, green at the base: renamed or split, a rewrite stated", added, false, statement, "envtest", green, notRun, notRun, green, "⚠️", statement},
		{"red at the head", added, false, "", "envtest", red, notRun, notRun, red, "❌", "fails at the head"},
		{"characterization does not excuse a red head", added, true, "", "envtest", green, notRun, notRun, red, "❌", "fails at the head"},
		{"failed outside the spec at the base", added, false, "", "envtest", broke, notRun, notRun, green, "❌", "proves nothing"},
		{"no tier runs it", added, false, "", "", notRun, notRun, notRun, notRun, "❌", "not checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := scenario
			if tt.tier == "unit" {
				k = unit
			}
			s := spec{kind: k, name: "s", change: tt.change, tier: tt.tier, characterization: tt.characterization, rewrite: tt.rewrite}
			if s.characterization {
				s.reason = aReason
			}
			r := judge(s, tt.base, tt.withAPI, tt.wired, tt.head)
			if r.tick != tt.wantTick || !strings.Contains(r.verdict, tt.wantVerdict) {
				t.Errorf("judge = %s %q, want %s and a verdict containing %q", r.tick, r.verdict, tt.wantTick, tt.wantVerdict)
			}
			if r.ok() != (tt.wantTick != "❌") {
				t.Errorf("judge.ok() = %v for %s", r.ok(), tt.wantTick)
			}
		})
	}
}

// aReason is a characterization spec's reason in the documented form.
const aReason = "written after the event it proves, when the mutation sweep found that no spec noticed its action left empty."

// TestACharacterizationSpecIsNewAndSaysWhy: the label lets a spec pass at the base only where its
// comment says what it pins and why it came after the code, and only a new spec: a changed one
// passes at the base by nature, so weakening it is a rewrite, stated by its trailer.
func TestACharacterizationSpecIsNewAndSaysWhy(t *testing.T) {
	green := outcome{state: passed}
	for _, tt := range []struct {
		name, change, reason, rewrite string
		wantOK                        bool
		wantVerdict                   string
	}{
		{"new, with its reason", added, aReason, "", true, "characterization: passed at the base, as its label says: " + aReason},
		{"new, without a reason", added, "", "", false, "labelled characterization without its reason"},
		{"new, with a reason that says neither what nor why", added, "written after the code.", "", false, "labelled characterization without its reason"},
		{"changed", changed, aReason, "", false, "Spec-Rewrite"},
		{"changed, its rewrite stated", changed, aReason, "abc1234 \"loosen\"", true, "abc1234"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := spec{kind: scenario, name: "s", change: tt.change, tier: "envtest", characterization: true, reason: tt.reason, rewrite: tt.rewrite}
			if r := judge(s, green, outcome{}, outcome{}, green); r.ok() != tt.wantOK || !strings.Contains(r.verdict, tt.wantVerdict) {
				t.Errorf("judge = %v %q, want %v and a verdict containing %q", r.ok(), r.verdict, tt.wantOK, tt.wantVerdict)
			}
		})
	}
}

// TestACharacterizationReasonIsItsParagraph: the reason is the paragraph of a comment that starts
// "Characterization:", on one line.
func TestACharacterizationReasonIsItsParagraph(t *testing.T) {
	for comment, want := range map[string]string{
		"TestX checks x.\n\nCharacterization: written after the code,\nwhen x.\n\nMore.": "written after the code, when x.",
		"Characterization: written after y, because z.":                                  "written after y, because z.",
		"TestX checks x.": "",
	} {
		if got := characterizationReason(comment); got != want {
			t.Errorf("characterizationReason(%q) = %q, want %q", comment, got, want)
		}
	}
}

// TestANoBreakStatementIsItsParagraph: the statement that no break reaches a spec is the paragraph
// of its comment that starts "No break reaches it:", whole, on one line; there even when it says
// nothing more, so that judge can refuse it.
func TestANoBreakStatementIsItsParagraph(t *testing.T) {
	for comment, want := range map[string]string{
		"TestX checks x.\n\nCharacterization: written after x, when y.\n\nNo break reaches it: that x holds,\nbecause nothing breaks x.\n\nMore.": "No break reaches it: that x holds, because nothing breaks x.",
		"Characterization: written after x, when y.\n\nNo break reaches it:":                                                                      "No break reaches it:",
		"Characterization: written after x, when y. No break reaches it: in the same paragraph.":                                                  "",
		"TestX checks x.": "",
	} {
		if got := noBreakStatement(comment); got != want {
			t.Errorf("noBreakStatement(%q) = %q, want %q", comment, got, want)
		}
	}
}

// TestANoBreakStatementSaysWhatAndWhy: a statement that no break reaches a spec names the promise
// and why no break of the code it runs can make it fail, each in words of its own; an empty one,
// boilerplate, or the form with its placeholders left in says nothing.
func TestANoBreakStatementSaysWhatAndWhy(t *testing.T) {
	for statement, want := range map[string]bool{
		"No break reaches it: that building a ConfigMap never panics, because no generic break of the builder makes it panic.": true,
		"No break reaches it: the order of two events, because the sweep breaks no order of calls.":                            true,
		"":                                     false,
		"No break reaches it:":                 false,
		"No break reaches it: n/a.":            false,
		"No break reaches it: it, because it.": false,
		"No break reaches it: it is fine, because it is fine.":                                                     false,
		"No break reaches it: that building a ConfigMap never panics.":                                             false,
		"No break reaches it: <the promise it pins>, because <why no break of the code it runs can make it fail>.": false,
		"Characterization: written after x, because no generic break of the builder makes it panic.":               false,
	} {
		if got := statesPromise(statement); got != want {
			t.Errorf("statesPromise(%q) = %v, want %v", statement, got, want)
		}
	}
}

// TestACharacterizationSpecMustFailAgainstABreak: a characterization spec accepted at the base is
// tried against the breaks it reaches; the row names the break that failed it, or, with none,
// refuses it and says what to do, unless the spec states which promise no break can reach, which
// the row shows for a reviewer. The same of a spec whose tier the sweep does not run.
func TestACharacterizationSpecMustFailAgainstABreak(t *testing.T) {
	green := outcome{state: passed}
	const statement = "No break reaches it: that building a ConfigMap never panics, because no generic break of the builder makes it panic."
	killer := sweeper.Verdict{Break: sweep.Break{File: "controllers/a.go", Line: 4, Func: "f", Operator: sweep.Constant, Was: `"a"`, Now: `""`}, Tier: "unit", Killer: "TestX", Where: "x_test.go:9", Reach: []string{"TestX"}}
	survivor := sweeper.Verdict{Break: killer.Break, Reach: []string{"TestX"}}
	unanswered := sweeper.Verdict{Break: killer.Break, Err: "build it: boom"}
	for _, tt := range []struct {
		name, tier, noBreak string
		reached             int
		tried               []sweeper.Verdict
		wantTick            string
		wantVerdict         []string
	}{
		{"a break fails it", "unit", "", 3, []sweeper.Verdict{survivor, killer}, "✅", []string{"characterization: ", "as its label says: " + strings.TrimSuffix(aReason, ".") + `; fails against: controllers/a.go f constant: "a" → "" (x_test.go:9)`}},
		{"no break fails it", "unit", "", 2, []sweeper.Verdict{survivor, unanswered}, "❌", []string{"no break of the production code it reaches fails it (2 reached, tried against it alone, 1 without a verdict): make it able to fail", noBreakForm}},
		{"it reaches none", "envtest", "", 0, nil, "❌", []string{"no break of the production code it reaches fails it (0 reached"}},
		{"no break fails it, as it states", "unit", statement, 1, []sweeper.Verdict{survivor}, "⚠️", []string{"characterization no break fails: passed at the base, as its label says: " + strings.TrimSuffix(aReason, ".") + "; no break", "and it states: " + statement}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := judge(spec{kind: unit, name: "TestX", change: added, tier: tt.tier, characterization: true, reason: aReason, noBreak: tt.noBreak}, green, outcome{}, outcome{}, green)
			if r.needs() != alone {
				t.Fatalf("a characterization spec accepted at the base needs %d, want it tried alone (%d): %s %s", r.needs(), alone, r.tick, r.verdict)
			}
			r.failsAlone(tt.reached, tt.tried)
			for _, want := range tt.wantVerdict {
				if r.tick != tt.wantTick || !strings.Contains(r.verdict, want) {
					t.Errorf("judged %s %q, want %s and a verdict containing %q", r.tick, r.verdict, tt.wantTick, want)
				}
			}
			if strings.Contains(r.verdict, ".;") {
				t.Errorf("judged %q: a clause follows the reason's full stop", r.verdict)
			}
		})
	}
	for noBreak, wantTick := range map[string]string{"": "❌", statement: "⚠️"} {
		r := judge(spec{kind: scenario, name: "s", change: added, tier: "e2e local", characterization: true, reason: aReason, noBreak: noBreak}, green, outcome{}, outcome{}, green)
		r.unswept()
		if r.tick != wantTick || !strings.Contains(r.verdict, "no break was tried against it: the mutation sweep runs the unit tests and the envtest tier, not e2e local") {
			t.Errorf("a characterization spec of the e2e tier, statement %q: %s %q, want %s, saying no break was tried", noBreak, r.tick, r.verdict, wantTick)
		}
		if strings.Contains(r.verdict, ".;") {
			t.Errorf("a characterization spec of the e2e tier, statement %q: %q: a clause follows the reason's full stop", noBreak, r.verdict)
		}
	}
	r := judge(spec{kind: unit, name: "TestX", change: added, tier: "unit", characterization: true, reason: aReason, noBreak: "No break reaches it: n/a."}, green, outcome{}, outcome{}, green)
	if r.ok() || !strings.Contains(r.verdict, "its statement that no break reaches it says nothing (No break reaches it: n/a.)") || r.needs() != noBreaks {
		t.Errorf("a statement that says nothing: %s %q, needs %d; want it refused before any break is tried", r.tick, r.verdict, r.needs())
	}
}

// TestARewriteIsJudgedByTheSweepOfItsBreaks: a rewritten spec allowed at the base is judged by the
// sweep of the breaks it reaches: each killed, or listed equivalent, leaves it allowed and says
// so; a survivor, or a break without a verdict, refuses it, naming the break and what reaches it.
func TestARewriteIsJudgedByTheSweepOfItsBreaks(t *testing.T) {
	green := outcome{state: passed}
	const statement = "abc1234 \"loosen\""
	at := func(line int, was string) sweep.Break {
		return sweep.Break{File: "controllers/a.go", Line: line, Func: "f", Operator: sweep.Constant, Was: was, Now: `""`}
	}
	killed := sweeper.Verdict{Break: at(4, `"a"`), Tier: "envtest", Killer: "Sample when x y", Reach: []string{"TestX", "Sample when x y"}}
	survivor := sweeper.Verdict{Break: at(6, `"b"`), Reach: []string{"TestX"}}
	everyTest := sweeper.Verdict{Break: at(7, `"e"`), Reach: []string{"TestX", "TestA", "TestB", "TestC", "TestD"}}
	equivalent := sweeper.Verdict{Break: at(8, `"c"`), Reach: []string{"TestX"}}
	unanswered := sweeper.Verdict{Break: at(10, `"d"`), Err: "the scenarios wrote no report"}
	listed := map[string]string{equivalent.Break.ID(): "a tuning constant"}
	for _, tt := range []struct {
		name        string
		verdicts    []sweeper.Verdict
		wantTick    string
		wantVerdict []string
	}{
		{"each killed or equivalent", []sweeper.Verdict{killed, equivalent}, "⚠️", []string{"rewritten: ", statement, "; the sweep of the 2 breaks it reaches: each killed by a test that reaches it, or listed equivalent"}},
		{"it reaches none", nil, "⚠️", []string{"the sweep of the 0 breaks it reaches"}},
		{"a survivor", []sweeper.Verdict{killed, survivor, equivalent}, "❌", []string{"rewritten: ", "but 1 break(s) of the lines it reaches survive every test that reaches them", "controllers/a.go:6 `" + survivor.Break.ID() + "` (reached by: TestX)"}},
		{"a survivor every test reaches", []sweeper.Verdict{everyTest}, "❌", []string{"(reached by: TestX; TestA; TestB and 2 more)"}},
		{"no verdict", []sweeper.Verdict{killed, unanswered}, "❌", []string{"1 break(s) of the lines it reaches without a verdict: controllers/a.go:10", "the scenarios wrote no report"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := judge(spec{kind: unit, name: "TestX", change: changed, tier: "unit", rewrite: statement}, green, outcome{}, outcome{}, green)
			if r.needs() != guarded {
				t.Fatalf("a rewritten spec allowed at the base needs %d, want its breaks swept (%d): %s %s", r.needs(), guarded, r.tick, r.verdict)
			}
			r.guardedBy(tt.verdicts, listed)
			for _, want := range tt.wantVerdict {
				if r.tick != tt.wantTick || !strings.Contains(r.verdict, want) {
					t.Errorf("judged %s %q, want %s and a verdict containing %q", r.tick, r.verdict, tt.wantTick, want)
				}
			}
			if strings.Contains(r.verdict, ".;") {
				t.Errorf("judged %q: a clause follows the reason's full stop", r.verdict)
			}
		})
	}
	if r := judge(spec{kind: unit, name: "TestX", change: added, tier: "unit", rewrite: statement}, outcome{failed, "red"}, outcome{}, outcome{}, green); r.needs() != noBreaks {
		t.Errorf("a spec written first, a rewrite stated all the same, needs %d, want no sweep", r.needs())
	}
}

func TestRewriteStatementsNameChangedSpecs(t *testing.T) {
	log := "\x1eabc1234\x00skip-when-equal keeps others' annotations\x00Sample when a reconcile finds nothing to change sends no write\nTestDesiredConfigMap\n" +
		"\x1edef5678\x00the code\x00\n" +
		"\x1e0123456\x00a stale statement\x00Sample when gone it is gone\n"
	specs := []spec{
		{kind: scenario, name: "Sample when a reconcile finds nothing to change sends no write", change: changed},
		{kind: unit, name: "TestDesiredConfigMap", change: changed},
		{kind: unit, name: "TestOther", change: changed},
	}
	stale := applyRewrites(specs, log)
	if want := "abc1234 \"skip-when-equal keeps others' annotations\""; specs[0].rewrite != want || specs[1].rewrite != want {
		t.Errorf("rewrites = %q, %q, want both %q", specs[0].rewrite, specs[1].rewrite, want)
	}
	if specs[2].rewrite != "" {
		t.Errorf("a spec no statement names got %q", specs[2].rewrite)
	}
	if len(stale) != 1 || !strings.Contains(stale[0], "Sample when gone it is gone") || !strings.Contains(stale[0], "0123456") {
		t.Errorf("stale statements = %q, want the one naming no changed spec", stale)
	}
}

// TestAgainstTheBaseIsTheHeadWithTheBasesProduction: the tree against the base is the head's with
// the base's production code, tests aside (a file only the head has there is gone); with
// production[1:], api/ stays the head's; with wiring too, the scenarios' code beside their specs
// is the base's. The production files changed are those the table names.
func TestAgainstTheBaseIsTheHeadWithTheBasesProduction(t *testing.T) {
	root := t.TempDir()
	paths := []string{"api/v1alpha1/types.go", "api/v1alpha1/types_test.go", "apis/x.go", "cmd/main.go", "config/crd/crd.yaml",
		"config/rbac/role.yaml", "controllers/c.go", "controllers/c_test.go", "testing/x_test.go",
		"scenarios/x_test.go", "scenarios/samples/operator.go", "scenarios/samples/samples_test.go", "scenarios/README.md"}
	mustGit := func(args ...string) string {
		t.Helper()
		out, err := repo.Git(root, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	commit := func(content string, more ...string) string {
		t.Helper()
		for _, path := range append(paths, more...) {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, path), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mustGit("add", "-A")
		mustGit("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", content)
		return mustGit("rev-parse", "HEAD")
	}
	mustGit("init", "-q")
	base := commit("base")
	head := commit("head", "controllers/only_head.go", "scenarios/samples/only_head.go")

	tree := func(name string, paths ...string) map[string]string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), name)
		if err := materialize(root, dir, head, base, paths); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			content, err := os.ReadFile(path)
			rel, _ := filepath.Rel(dir, path)
			got[filepath.ToSlash(rel)] = string(content)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := map[string]string{"api/v1alpha1/types.go": "base", "api/v1alpha1/types_test.go": "head", "apis/x.go": "head", "cmd/main.go": "base",
		"config/crd/crd.yaml": "base", "config/rbac/role.yaml": "head", "controllers/c.go": "base", "controllers/c_test.go": "head", "testing/x_test.go": "head",
		"scenarios/x_test.go": "head", "scenarios/samples/operator.go": "head", "scenarios/samples/samples_test.go": "head", "scenarios/README.md": "head",
		"scenarios/samples/only_head.go": "head"}
	if got := tree("against-base", production...); !maps.Equal(got, want) {
		t.Errorf("against the base:\n got %v\nwant %v", got, want)
	}
	want["api/v1alpha1/types.go"] = "head"
	if got := tree("with-head-api", production[1:]...); !maps.Equal(got, want) {
		t.Errorf("against the base with the head's api/:\n got %v\nwant %v", got, want)
	}
	// As the base wires its scenarios: their code beside the specs is the base's too, the specs
	// and the rest of scenarios/ the head's.
	want["scenarios/samples/operator.go"] = "base"
	delete(want, "scenarios/samples/only_head.go")
	if got := tree("as-base-wires-it", append(slices.Clone(production[1:]), wiring)...); !maps.Equal(got, want) {
		t.Errorf("against the base with the head's api/, as the base wires its scenarios:\n got %v\nwant %v", got, want)
	}
	if status := mustGit("status", "--porcelain"); status != "" {
		t.Errorf("the repository's work tree or index changed:\n%s", status)
	}

	t.Chdir(root)
	_, rp, err := revisions(base, head)
	if want := []string{"api/v1alpha1/types.go", "cmd/main.go", "config/crd/crd.yaml", "controllers/c.go", "controllers/only_head.go"}; err != nil || !slices.Equal(rp.production, want) {
		t.Errorf("production changed = %q, %v; want %q", rp.production, err, want)
	}
}

func TestMarkdownShowsEveryVerdictAndAChangeWithoutSpecs(t *testing.T) {
	rp := report{base: "abc", head: "def", production: []string{"controllers/x.go"}, rows: []row{
		judge(spec{kind: scenario, name: "Sample when a | b it c", change: "new", tier: "envtest"}, outcome{failed, "step: boom (x_test.go:1)"}, outcome{}, outcome{}, outcome{state: passed}),
		judge(spec{kind: unit, name: "TestY", change: "changed", tier: "unit"}, outcome{state: passed}, outcome{}, outcome{}, outcome{state: passed}),
		judge(spec{kind: unit, name: "TestZ", change: "new", tier: "unit"}, outcome{uncompiled, "does not compile: undefined: R"}, outcome{failed, "want R (z_test.go:9)"}, outcome{}, outcome{state: passed}),
		judge(spec{kind: scenario, name: "Sample when copied it passes", change: "new", tier: "envtest"}, outcome{uncompiled, "does not compile: undefined: P"}, outcome{state: passed}, outcome{}, outcome{state: passed}),
		judge(spec{kind: scenario, name: "Sample when wired it converts", change: "new", tier: "envtest"}, outcome{uncompiled, "does not compile: undefined: W"},
			outcome{uncompiled, "does not compile: undefined: W"}, outcome{failed, "reading it: no kind v1beta1 (w_test.go:7)"}, outcome{state: passed}),
	}}
	md := rp.markdown()
	for _, want := range []string{
		`scenario: Sample when a \| b it c`, "failed: step: boom (x_test.go:1)", "✅ written first",
		"unit: TestY", "❌ passed at the base", "Production code changed: `controllers/x.go`",
		"does not compile: undefined: R; with the head's api/: failed: want R (z_test.go:9)",
		"does not compile: undefined: P; with the head's api/: passed",
		"does not compile: undefined: W; with the head's api/: does not compile: undefined: W; as the base wires its scenarios: failed: reading it: no kind v1beta1 (w_test.go:7)",
		"| passed | ✅ written first |", "| unit | passed | passed | ❌ passed at the base",
		"5 spec(s): ✅ 3 written first, ✅ 0 characterization, ⚠️ 0 characterization no break fails, ⚠️ 0 rewrites stated, ⚠️ 0 removals stated, ❌ 2 not shown test-first",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	if got := rp.failures(); len(got) != 2 || !strings.Contains(got[0], "TestY") || !strings.Contains(got[1], "copied") {
		t.Errorf("failures = %q, want TestY and the copied scenario", got)
	}

	empty := report{base: "abc", head: "def", production: []string{"controllers/x.go"}}.markdown()
	if !strings.Contains(empty, "no new or changed spec") || !strings.Contains(empty, "production code changed without a new or changed spec") {
		t.Errorf("a change with production code and no spec is not shown:\n%s", empty)
	}
}

// TestEveryCharacterizationSpecSaysWhy: each spec of this repository labelled characterization
// (a Go test: with a Characterization paragraph) gives its reason in the documented form, so that
// no spec on main is one that make test-first would now refuse.
func TestEveryCharacterizationSpecSaysWhy(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	specs, err := unitTests(root, "api", "controllers")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "*", "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, "It(") && strings.Contains(line, `"`+Characterization+`"`) {
				f, err := specsource.Parse(file)
				if err != nil {
					t.Fatal(err)
				}
				specs = append(specs, spec{name: fmt.Sprintf("%s:%d", file, i+1), characterization: true, reason: characterizationReason(f.Comment(i + 1))})
			}
		}
	}
	found := 0
	for _, s := range specs {
		if s.characterization {
			found++
			if !statesWhy(s.reason) {
				t.Errorf("%s %s: labelled characterization, its reason %q not in the form %s", s.file, s.name, s.reason, characterizationForm)
			}
		}
	}
	if found < 5 {
		t.Errorf("found %d characterization specs, want those of scenarios/ and controllers/", found)
	}
}

// TestEachTiersEnvironmentSelectsIt: a run that sets a tier's environment runs on that tier.
func TestEachTiersEnvironmentSelectsIt(t *testing.T) {
	for _, tier := range runnable {
		t.Setenv(tiers.Env, "")
		t.Setenv(tiers.ProviderEnv, "")
		for _, v := range environment(tier) {
			name, value, _ := strings.Cut(v, "=")
			t.Setenv(name, value)
		}
		if got, err := tiers.Current(); err != nil || got.Provider != tier.Provider {
			t.Errorf("with %v the scenarios run on %q (%v), want %q", environment(tier), got.Provider, err, tier.Name)
		}
	}
}

// TestHowASpecEnded: what the compiler said comes first; else the spec's result, by its name:
// passed, failed in the spec, failed outside it; one the results leave out, or skipped, did not run.
func TestHowASpecEnded(t *testing.T) {
	s := spec{name: "Sample when x it y", file: "scenarios/x_test.go"}
	for _, tt := range []struct {
		results  []specreport.Result
		compiler string
		want     outcome
	}{
		{nil, "# scenarios\nscenarios/x_test.go:3:2: undefined: Y\n", outcome{uncompiled, "does not compile: scenarios/x_test.go:3:2: undefined: Y"}},
		{[]specreport.Result{{Name: s.name, Passed: true}}, "", outcome{state: passed}},
		{[]specreport.Result{{Name: s.name, InSpec: true, Message: "boom", Location: "scenarios/x_test.go:9"}}, "", outcome{failed, "boom (scenarios/x_test.go:9)"}},
		{[]specreport.Result{{Name: s.name, Message: "cleanup failed"}}, "", outcome{broken, "failed outside the spec: cleanup failed"}},
		{[]specreport.Result{{Name: "another", Passed: true}}, "", outcome{broken, "did not run"}},
		{[]specreport.Result{{Name: s.name, Skipped: true}}, "", outcome{broken, "did not run"}},
	} {
		if got := ended(s, tt.results, tt.compiler); got != tt.want {
			t.Errorf("ended(%+v, %q) = %+v, want %+v", tt.results, tt.compiler, got, tt.want)
		}
	}
}

// TestAPendingSpecAtTheHeadIsRefusedByItsLine: a spec the head's dry run lists as pending is a
// gap hidden from the run, refused by its file:line; a pending spec's body is read all the same
// (the base may hold one that the head writes), and a head without one is no error.
func TestAPendingSpecAtTheHeadIsRefusedByItsLine(t *testing.T) {
	listed := []specreport.Result{
		{Name: "Sample creates", File: "scenarios/x_test.go", Line: 4, Passed: true},
		{Name: "Sample is pending", File: "scenarios/x_test.go", Line: 5, Skipped: true, Pending: true},
	}
	err := refusePending(listed)
	if err == nil || !strings.Contains(err.Error(), `scenarios/x_test.go:5: "Sample is pending"`) || !strings.Contains(err.Error(), "a gap hidden from the run") ||
		strings.Contains(err.Error(), "x_test.go:4") {
		t.Errorf("refusePending = %v, want an error naming x_test.go:5 alone, as a gap hidden from the run", err)
	}
	if err := refusePending(listed[:1]); err != nil {
		t.Errorf("refusePending of no pending spec = %v", err)
	}

	tree := t.TempDir()
	const source = "package scenarios\n\nvar _ = Describe(\"Sample\", func() {\n\tIt(\"creates\", func() { create() })\n\tPIt(\"is pending\", func() { wait() })\n})\n"
	if err := os.MkdirAll(filepath.Join(tree, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "scenarios", "x_test.go"), []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	specs, err := scenarioSpecs(tree, listed)
	if err != nil || len(specs) != 2 || specs[1].body != `PIt ( "is pending" , func ( ) { wait ( ) } )` {
		t.Errorf("scenario specs of a tree with a pending spec: %+v, %v", specs, err)
	}
}

// TestRemovedSpecsAreTheBasesThatTheHeadLacks: a spec of the base whose name the head lacks in
// its package is removed (a rename too: its old name); so is one of two that share a name where
// the head keeps one.
func TestRemovedSpecsAreTheBasesThatTheHeadLacks(t *testing.T) {
	base := []spec{
		{kind: scenario, pkg: "./scenarios", name: "Sample when equal sends no write", body: "a", tier: "envtest"},
		{kind: scenario, pkg: "./scenarios", name: "Sample when edited it restores", body: "b"},
		{kind: scenario, pkg: "./scenarios", name: "Sample twice", body: "c"},
		{kind: scenario, pkg: "./scenarios", name: "Sample twice", body: "d"},
		{kind: unit, pkg: "./controllers", name: "TestDesired", body: "e"},
	}
	head := []spec{
		{kind: scenario, pkg: "./scenarios", name: "Sample when edited it restores", body: "b2"},
		{kind: scenario, pkg: "./scenarios", name: "Sample twice", body: "c"},
		{kind: unit, pkg: "./api/v1alpha1", name: "TestDesired", body: "e"},
	}
	want := []spec{
		{kind: scenario, pkg: "./scenarios", name: "Sample when equal sends no write", body: "a", tier: "envtest", change: removed},
		{kind: scenario, pkg: "./scenarios", name: "Sample twice", body: "d", change: removed},
		{kind: unit, pkg: "./controllers", name: "TestDesired", body: "e", change: removed},
	}
	if got := removedSpecs(base, head); !slices.Equal(got, want) {
		t.Errorf("removed:\n got %+v\nwant %+v", got, want)
	}
}

// TestARemovalIsStatedByATrailerNamingTheSpec: a commit of the change whose trailer
// Spec-Removed names a removed spec states its removal (⚠️, quoting the commit, whose subject is
// its reason); a removed spec no commit names is refused, and so is a trailer that names no
// removed spec. The trailers are read from git, each key apart.
func TestARemovalIsStatedByATrailerNamingTheSpec(t *testing.T) {
	root := t.TempDir()
	mustGit := func(args ...string) string {
		t.Helper()
		out, err := repo.Git(root, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	mustGit("init", "-q")
	mustGit("commit", "-q", "--allow-empty", "-m", "the base")
	base := mustGit("rev-parse", "HEAD")
	mustGit("commit", "-q", "--allow-empty", "-m", "skip-when-equal: the scenario is the unit test's now", "--trailer", RemovedTrailer+": Sample when equal sends no write",
		"--trailer", RewriteTrailer+": Sample when edited it restores", "--trailer", RemovedTrailer+": Sample never was")
	head := mustGit("rev-parse", "HEAD")

	c := check{repo: root, base: base, head: head}
	removals, err := c.trailers(RemovedTrailer)
	if err != nil {
		t.Fatal(err)
	}
	specs := []spec{
		{kind: scenario, name: "Sample when equal sends no write", change: removed, tier: "envtest"},
		{kind: scenario, name: "Sample when edited it restores", change: removed, tier: "envtest"},
	}
	stale := applyRemovals(specs, removals)
	statement := head[:7] + ` "skip-when-equal: the scenario is the unit test's now"`
	if specs[0].removal != statement || specs[1].removal != "" {
		t.Errorf("removals = %q, %q; want the first stated by %s alone (a rewrite's trailer states no removal)", specs[0].removal, specs[1].removal, statement)
	}
	if len(stale) != 1 || !strings.Contains(stale[0], "Sample never was") || !strings.Contains(stale[0], head[:7]) {
		t.Errorf("stale statements = %q, want the one naming no removed spec", stale)
	}

	rp := report{base: "abc", head: "def", rows: []row{judgeRemoval(specs[0]), judgeRemoval(specs[1])}, stale: stale}
	md := rp.markdown()
	for _, want := range []string{
		"| scenario: Sample when equal sends no write | removed | envtest | — | — | ⚠️ removed: " + statement + " states it |",
		"| scenario: Sample when edited it restores | removed | envtest | — | — | ❌ removed, and no commit of the change states it",
		"`Spec-Removed: <the spec's name>`",
		"⚠️ 1 removals stated",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	if got := rp.failures(); len(got) != 2 || !strings.Contains(got[0], "Sample when edited it restores") || !strings.Contains(got[1], "Sample never was") {
		t.Errorf("failures = %q, want the unstated removal and the stale statement", got)
	}
}

// equivalentsOf writes entries (Go source, one "key: value," a line) as the sweep's equivalence
// list into a tree of its own, and reads it back as test-first does.
func equivalentsOf(t *testing.T, entries string) (map[string]string, error) {
	t.Helper()
	tree := t.TempDir()
	path := filepath.Join(tree, filepath.FromSlash(equivalentFile))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("package sweep\n\n// Equivalent are …\nvar Equivalent = map[string]string{\n"+entries+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return equivalents(tree)
}

// TestNewEquivalentsAreTheHeadsEntriesTheBaseLacks: an entry of the sweep's equivalence list is
// new when the base lists no break of its ID (a tree without the list lists none); a reason
// changed is no new entry. An ID that is not a string literal cannot be told new or not: an error
// naming its line.
func TestNewEquivalentsAreTheHeadsEntriesTheBaseLacks(t *testing.T) {
	base, err := equivalentsOf(t, "\t`a.go f constant: 8 → 0`: \"a tuning constant\",\n")
	if err != nil {
		t.Fatal(err)
	}
	head, err := equivalentsOf(t, "\t`a.go f constant: 8 → 0`: \"a tuning constant, \" +\n\t\t\"measured\",\n\t`b.go g delete: x() → `: `x is idle`,\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a.go f constant: 8 → 0": "a tuning constant, measured", "b.go g delete: x() → ": "x is idle"}; !maps.Equal(head, want) {
		t.Errorf("read %q, want %q", head, want)
	}
	if got, want := newEquivalents(base, head), []equivalent{{id: "b.go g delete: x() → ", reason: "x is idle"}}; !slices.Equal(got, want) {
		t.Errorf("new equivalents: %+v, want %+v", got, want)
	}
	none, err := equivalents(t.TempDir())
	if err != nil || len(none) != 0 {
		t.Errorf("a tree without the list: %q, %v; want no entry, no error", none, err)
	}
	if _, err := equivalentsOf(t, "\t`a`: \"x\",\n\tid(): \"y\",\n"); err == nil || !strings.Contains(err.Error(), "equivalent.go:6") {
		t.Errorf("an ID that is no string literal: %v, want an error naming equivalent.go:6", err)
	}
}

// TestEquivalentsAreReadAsTheSweepReadsThem: test-first reads this repository's equivalence list
// as the sweep compiles it, entry for entry: an entry the source adds otherwise (an init, another
// file) would pass test-first unseen.
func TestEquivalentsAreReadAsTheSweepReadsThem(t *testing.T) {
	got, err := equivalents(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, sweep.Equivalent) {
		t.Errorf("test-first reads %d entries, the sweep compiles %d: %q", len(got), len(sweep.Equivalent), got)
	}
}

// TestANewEquivalentIsStatedByATrailerNamingIt: a new entry of the equivalence list is allowed
// where a commit of the change names its break in a trailer Equivalent (⚠️, quoting the commit),
// refused where none does; a trailer that names no new entry fails. The report lists each new
// entry with its reason.
func TestANewEquivalentIsStatedByATrailerNamingIt(t *testing.T) {
	const stated, unstated = `controllers/a.go f constant: "x" → ""`, "controllers/b.go g delete: y() → "
	// A deletion's ID ends in a space, which git trims from a trailer's value.
	const deletion = "controllers/d.go k delete: w() → "
	log := "\x1eabc1234\x00metrics: the help text is no behaviour\x00" + stated + "\ncontrollers/c.go h negate: z → !z\n" + strings.TrimSpace(deletion) + "\n"
	entries := []equivalent{{id: stated, reason: "a metric's help text"}, {id: unstated, reason: "y is idle"}, {id: deletion, reason: "w is idle"}}
	stale := applyEquivalents(entries, log)
	if entries[0].statement != `abc1234 "metrics: the help text is no behaviour"` || entries[1].statement != "" || entries[2].statement != entries[0].statement {
		t.Errorf("statements %q, %q, %q; want the first and the last stated", entries[0].statement, entries[1].statement, entries[2].statement)
	}
	if len(stale) != 1 || !strings.Contains(stale[0], "controllers/c.go h negate") {
		t.Errorf("stale statements = %q, want the one naming no new entry", stale)
	}
	rp := report{base: "abc", head: "def", equivalents: entries, stale: stale}
	md := rp.markdown()
	for _, want := range []string{
		equivalentFile,
		`| controllers/a.go f constant: "x" → "" | a metric's help text | ⚠️ abc1234 "metrics: the help text is no behaviour" states it |`,
		"| controllers/b.go g delete: y() → | y is idle | ❌ no commit of the change states it: a trailer `Equivalent: <the break's ID>`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	if got := rp.failures(); len(got) != 2 || !strings.Contains(got[0], unstated) || !strings.Contains(got[1], "controllers/c.go h negate") {
		t.Errorf("failures = %q, want the unstated entry and the stale statement", got)
	}
}

// TestTheRunsAttachToTheWarmControlPlaneEnvtestWarmNames: the envtest runs attach to make
// envtest-up's control plane in the repository checked, unless ENVTEST_WARM names another (the
// selftest's throwaway histories have none of their own, and share one).
func TestTheRunsAttachToTheWarmControlPlaneEnvtestWarmNames(t *testing.T) {
	t.Setenv(warm.Env, "")
	if got, want := warmAttachment("/repo"), filepath.Join("/repo", "bin", "envtest-up", "kubeconfig"); got != want {
		t.Errorf("with no %s, the runs attach to %q, want the repository's %q", warm.Env, got, want)
	}
	t.Setenv(warm.Env, "/elsewhere/kubeconfig")
	if got := warmAttachment("/repo"); got != "/elsewhere/kubeconfig" {
		t.Errorf("with %s=/elsewhere/kubeconfig, the runs attach to %q", warm.Env, got)
	}
}
