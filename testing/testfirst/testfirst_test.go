package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestChangedScenariosAreNewTextsAndChangedBodies(t *testing.T) {
	base := []scenarioSpec{
		{name: "Sample when created it creates", body: "a", tiers: []string{"envtest", "e2e"}},
		{name: "Sample when edited it restores", body: "b", tiers: []string{"envtest", "e2e"}},
		{name: "Sample when deleted it is collected", body: "c", tiers: []string{"e2e"}},
	}
	head := []scenarioSpec{
		{name: "Sample when created it creates", body: "a", tiers: []string{"envtest", "e2e"}},
		{name: "Sample when edited it restores", body: "b2", tiers: []string{"envtest", "e2e"}},
		{name: "Sample when deleted it is collected", body: "c", tiers: []string{"e2e"}},
		{name: "Sample when paused it waits", body: "d", labels: []string{"paused", Characterization}, tiers: []string{"envtest"}},
		{name: "Sample when killed it recovers", body: "e", tiers: []string{"e2e"}},
	}
	got := changedScenarios(base, head)
	want := []spec{
		{kind: scenario, pkg: "./scenarios", name: "Sample when edited it restores", change: "changed", tier: "envtest"},
		{kind: scenario, pkg: "./scenarios", name: "Sample when paused it waits", change: "new", tier: "envtest", characterization: true},
		{kind: scenario, pkg: "./scenarios", name: "Sample when killed it recovers", change: "new", tier: "e2e"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("changed scenarios:\n got %+v\nwant %+v", got, want)
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
		"// TestOld describes what the base does already.\n//\n// Characterization: the base has it.\nfunc TestOld(t *testing.T) {}\n\nfunc helper(t *testing.T) {}\n")
	base, err := unitTests(filepath.Join(dir, "base"), "api", "controllers")
	if err != nil {
		t.Fatal(err)
	}
	head, err := unitTests(filepath.Join(dir, "head"), "api", "controllers")
	if err != nil {
		t.Fatal(err)
	}
	got := changedUnitTests(base, head)
	want := []spec{
		{kind: unit, pkg: "./controllers", name: "TestEdited", change: "changed", tier: "unit"},
		{kind: unit, pkg: "./controllers", name: "TestOld", change: "new", tier: "unit", characterization: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("changed unit tests:\n got %+v\nwant %+v", got, want)
	}
}

func TestJudge(t *testing.T) {
	red := outcome{failed, "checking: Expected 1 to equal 2 (scenarios/x_test.go:3)"}
	green := outcome{passed, "passed"}
	uncompiledBase := outcome{uncompiled, "does not compile: x.go:1: undefined: Y"}
	none := outcome{}
	tests := []struct {
		name             string
		characterization bool
		tier             string
		base, withAPI    outcome
		head             outcome
		wantOK           bool
		wantVerdict      string
	}{
		{"red at the base, green at the head", false, "envtest", red, none, green, true, "written first"},
		{"does not compile against the base, red with the head's api/", false, "unit", uncompiledBase, red, green, true, "written first (did not compile"},
		{"does not compile against the base, green with the head's api/", false, "envtest", uncompiledBase, green, green, true, "does it test the new behaviour?"},
		{"green at the base", false, "envtest", green, none, green, false, "passed at the base"},
		{"green at the base, labelled characterization", true, "envtest", green, none, green, true, "characterization"},
		{"red at the head", false, "envtest", red, none, red, false, "fails at the head"},
		{"characterization does not excuse a red head", true, "envtest", green, none, red, false, "fails at the head"},
		{"failed outside the spec at the base", false, "envtest", outcome{broken, "failed outside the spec"}, none, green, false, "proves nothing"},
		{"no tier runs it", false, "", none, none, none, false, "not checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := judge(spec{name: "s", tier: tt.tier, characterization: tt.characterization}, tt.base, tt.withAPI, tt.head, false)
			if r.ok != tt.wantOK || !strings.Contains(r.verdict, tt.wantVerdict) {
				t.Errorf("judge = %v %q, want %v and a verdict containing %q", r.ok, r.verdict, tt.wantOK, tt.wantVerdict)
			}
		})
	}

	// -allow-rewrites: a changed spec may pass against the base; a new one still may not.
	rewritten := judge(spec{name: "s", tier: "envtest", change: "changed"}, green, none, green, true)
	if !rewritten.ok || !rewritten.warn || !strings.Contains(rewritten.verdict, "rewritten") {
		t.Errorf("a rewritten spec with -allow-rewrites: %+v, want it shown and allowed", rewritten)
	}
	added := judge(spec{name: "s", tier: "envtest", change: "new"}, green, none, green, true)
	if added.ok {
		t.Errorf("a new spec green at the base with -allow-rewrites: %+v, want it failed", added)
	}
}

func TestFocusMatchesExactlyTheNamedSpecs(t *testing.T) {
	re := regexp.MustCompile(focus("Sample scenarios", []string{"Sample when (a) it [b]", "Sample when c it d"}))
	for text, want := range map[string]bool{
		"Sample scenarios Sample when (a) it [b]":       true,
		"Sample scenarios Sample when c it d":           true,
		"Sample scenarios Sample when c it d and e":     false,
		"Sample scenarios Sample when (a) it [b] again": false,
		"Other Sample when c it d":                      false,
	} {
		if got := re.MatchString(text); got != want {
			t.Errorf("focus matches %q: %v, want %v", text, got, want)
		}
	}
}

func TestIsProduction(t *testing.T) {
	for path, want := range map[string]bool{
		"controllers/sample_controller.go":               true,
		"controllers/sample_controller_test.go":          false,
		"api/v1alpha1/zz_generated.deepcopy.go":          true,
		"config/crd/bases/demo.example.com_samples.yaml": true,
		"config/rbac/role.yaml":                          false,
		"cmd/main.go":                                    true,
		"scenarios/create_test.go":                       false,
		"apis/x.go":                                      false,
	} {
		if got := isProduction(filepath.FromSlash(path)); got != want {
			t.Errorf("isProduction(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestMarkdownShowsEveryVerdictAndAChangeWithoutSpecs(t *testing.T) {
	rp := report{base: "abc", head: "def", production: []string{"controllers/x.go"}, rows: []row{
		judge(spec{kind: scenario, name: "Sample when a | b it c", change: "new", tier: "envtest"}, outcome{failed, "step: boom (x_test.go:1)"}, outcome{}, outcome{passed, "passed"}, false),
		judge(spec{kind: unit, name: "TestY", change: "changed", tier: "unit"}, outcome{passed, "passed"}, outcome{}, outcome{passed, "passed"}, false),
		judge(spec{kind: unit, name: "TestZ", change: "new", tier: "unit"}, outcome{uncompiled, "does not compile: undefined: R"}, outcome{failed, "want R (z_test.go:9)"}, outcome{passed, "passed"}, false),
	}}
	md := rp.markdown()
	for _, want := range []string{
		`scenario: Sample when a \| b it c`, "failed: step: boom (x_test.go:1)", "✅ written first",
		"unit: TestY", "❌ passed at the base", "Production code changed: `controllers/x.go`", "1 not shown test-first",
		"does not compile: undefined: R; with the head's api/: failed: want R (z_test.go:9)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	if got := rp.failures(); len(got) != 1 || !strings.Contains(got[0], "TestY") {
		t.Errorf("failures = %q, want TestY alone", got)
	}

	empty := report{base: "abc", head: "def", production: []string{"controllers/x.go"}}.markdown()
	if !strings.Contains(empty, "no new or changed spec") || !strings.Contains(empty, "production code changed without a new or changed spec") {
		t.Errorf("a change with production code and no spec is not shown:\n%s", empty)
	}
}
