package main

import (
	"fmt"
	"strings"
	"time"

	"example.com/operator-demo/testing/workshop/specreport"
)

// row is one spec, how it ended against the base (and, when it did not compile there, against the
// base with the head's api/) and at the head, and what that makes it.
type row struct {
	spec                spec
	base, withAPI, head outcome
	verdict             string
	ok                  bool
	// warn: ok, but a reviewer should look.
	warn bool
}

// judge says what a spec's runs make it. Test-first means: it fails against the base's behaviour,
// inside the spec, and passes at the head. A spec that does not compile against the base because
// it uses names the change adds to api/ is judged by its run against the base's behaviour with
// the head's api/: it must fail there too; a unit test that does not compile there either (its
// function is new) must fail against a break of that function (bite). Passing against the base is
// allowed only to a new spec labelled characterization that says why, and to a spec whose rewrite
// a commit of the change states.
func judge(s spec, base, withAPI, head, bite outcome) row {
	r := row{spec: s, base: base, withAPI: withAPI, head: head}
	switch {
	case s.characterization && !statesWhy(s.reason):
		r.verdict = "labelled characterization without its reason: say what it pins and why it came after the code, as " + characterizationForm
	case s.tier == "":
		r.verdict = "not checked: no tier here runs it"
	case head.state == broken:
		r.verdict = "not checked: the run at the head proves nothing"
	case head.state != passed:
		r.verdict = "fails at the head"
	case base.state == failed:
		r.verdict, r.ok = "written first", true
	case base.state == uncompiled:
		r.verdict, r.ok, r.warn = withHeadAPI(s, withAPI, bite)
	case base.state == broken:
		r.verdict = "the run against the base proves nothing"
	default:
		r.verdict, r.ok, r.warn = passedAtBase(s, "passed at the base")
	}
	return r
}

// withHeadAPI judges a spec that does not compile against the base by its run against the base's
// behaviour with the head's api/.
func withHeadAPI(s spec, withAPI, bite outcome) (verdict string, ok, warn bool) {
	switch {
	case withAPI.state == failed:
		return "written first: red against the base's behaviour with the head's api/", true, false
	case withAPI.state == uncompiled && s.kind == unit && bite.state == failed:
		// The usual red of a unit test: the function it tests does not exist yet. It can fail.
		return "written first: does not compile against the base, even with the head's api/, and fails against the break " + bite.detail, true, false
	case withAPI.state == uncompiled && s.kind == unit:
		return unproven(s, "does not compile against the base, even with the head's api/, but fails against "+bite.detail+": nothing shows it can fail")
	case withAPI.state == uncompiled:
		// A scenario needs more of the head than api/'s names (a harness change that follows a
		// production one): nothing shows how it fares against the base's behaviour.
		return unproven(s, "does not compile against the base even with the head's api/, so it was never seen red against the base's behaviour")
	case withAPI.state == passed:
		return passedAtBase(s, "passes against the base's behaviour once given the head's api/ names")
	}
	return "the run against the base with the head's api/ proves nothing", false, false
}

// passedAtBase judges a spec that passed against the base's behaviour (how says how it got there).
func passedAtBase(s spec, how string) (verdict string, ok, warn bool) {
	switch {
	case s.characterization && s.change == added:
		return "characterization: " + how + ", as its label says: " + s.reason, true, false
	case s.characterization:
		how += ", as a changed characterization spec does by nature: weakening one is a rewrite"
	}
	return unproven(s, how)
}

// unproven judges a spec that was not seen red against the base's behaviour (why says how so):
// allowed only where a commit of the change states that it rewrites the spec.
func unproven(s spec, why string) (verdict string, ok, warn bool) {
	if s.rewrite != "" {
		return "rewritten: " + why + "; " + s.rewrite + " states it rewrites the spec", true, true
	}
	hint := "if it describes behaviour the base already has, label it " + Characterization
	if s.change == changed {
		hint = "if it only rewrites the spec"
	}
	return why + ": not written first (" + hint + "; a rewrite, a rename or a split of existing specs is stated in a commit of the change by a trailer `" + RewriteTrailer + ": <the spec's name>`)", false, false
}

// report is the whole result of a run.
type report struct {
	base, head string // the revisions, as given, and their commits
	rows       []row
	// stale are the rewrite statements that name no spec the change changes.
	stale      []string
	production []string // production files the change touches
	took       time.Duration
}

// failures names every spec that does not show test-first.
func (rp report) failures() []string {
	var out []string
	for _, r := range rp.rows {
		if !r.ok {
			out = append(out, fmt.Sprintf("%s %q: %s", r.spec.kind, r.spec.name, r.verdict))
		}
	}
	return append(out, rp.stale...)
}

// markdown renders the report as the table a reviewer reads.
func (rp report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Test first: %s..%s\n\n", rp.base, rp.head)
	p("Each spec this change adds or changes runs, as the head has it, against the base's behaviour (its\n")
	p("`api/`, `controllers/`, `cmd/`, `config/crd/`; with the head's `api/` where the spec needs its new\n")
	p("names to compile), where it must fail inside the spec, and at the head, where it must pass.\n\n")
	p("| Spec | Change | Tier | Against the base | At the head | Verdict |\n|---|---|---|---|---|---|\n")
	for _, r := range rp.rows {
		against := mark(r.base)
		if r.base.state == uncompiled && r.withAPI != (outcome{}) {
			against += "; with the head's api/: " + mark(r.withAPI)
		}
		p("| %s | %s | %s | %s | %s | %s %s |\n", specreport.Cell(string(r.spec.kind)+": "+r.spec.name), r.spec.change, orDash(r.spec.tier),
			against, mark(r.head), tick(r), specreport.Cell(r.verdict))
	}
	if len(rp.rows) == 0 {
		verdict := "no production code changed either"
		if len(rp.production) > 0 {
			verdict = "production code changed without a new or changed spec: allowed (a refactor, say), and shown"
		}
		p("| *no new or changed spec* | — | — | — | — | %s |\n", verdict)
	}
	if len(rp.production) > 0 {
		p("\nProduction code changed: `%s`.\n", strings.Join(rp.production, "`, `"))
	} else {
		p("\nProduction code unchanged.\n")
	}
	for _, st := range rp.stale {
		p("\n❌ %s\n", st)
	}
	var first, characterized, rewritten int
	for _, r := range rp.rows {
		switch {
		case !r.ok:
		case r.warn:
			rewritten++
		case r.spec.characterization && (r.base.state == passed || r.withAPI.state == passed):
			characterized++
		default:
			first++
		}
	}
	p("\n%d spec(s): ✅ %d written first, ✅ %d characterization, ⚠️ %d rewrites stated, ❌ %d not shown test-first. Took %s.\n",
		len(rp.rows), first, characterized, rewritten, len(rp.failures()), rp.took.Round(time.Second))
	return b.String()
}

func mark(o outcome) string {
	switch o.state {
	case none:
		return "—"
	case passed:
		return "passed"
	case failed:
		return "failed: " + specreport.Cell(o.detail)
	case uncompiled:
		return specreport.Cell(o.detail)
	default:
		return "no verdict: " + specreport.Cell(o.detail)
	}
}

func tick(r row) string {
	switch {
	case r.warn:
		return "⚠️"
	case r.ok:
		return "✅"
	}
	return "❌"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
