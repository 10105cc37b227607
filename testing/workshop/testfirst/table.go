package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"example.com/operator-demo/testing/workshop/mutate/sweeper"
	"example.com/operator-demo/testing/workshop/specreport"
)

// row is one spec, how it ended in each tree, and its verdict, ticked ✅, ⚠️ (allowed, but a
// reviewer should look all the same) or ❌.
type row struct {
	spec                       spec
	base, withAPI, wired, head outcome // wired: against the base with the head's api/, as the base wires its scenarios
	verdict, tick              string
}

func (r row) ok() bool { return r.tick == "✅" || r.tick == "⚠️" }

// judge says what a spec's runs make it. Test-first is failing inside the spec against the base's
// behaviour (given the head's api/ if need be, and for a scenario, as the base wires its
// scenarios if need be), and passing at the head.
func judge(s spec, base, withAPI, wired, head outcome) row {
	r := row{spec: s, base: base, withAPI: withAPI, wired: wired, head: head, tick: "❌"}
	switch unstated := unstatedCharacterization(s); {
	case unstated != "":
		r.verdict = unstated
	case s.tier == "":
		r.verdict = "not checked: no tier here runs it"
	case head.state == broken:
		r.verdict = "not checked: the run at the head proves nothing"
	case head.state != passed:
		r.verdict = "fails at the head"
	case base.state == failed:
		r.verdict, r.tick = "written first", "✅"
	case base.state == broken:
		r.verdict = "the run against the base proves nothing"
	case base.state != uncompiled:
		r.unproven("passed at the base", true)
	case withAPI.state == failed:
		r.verdict, r.tick = "written first: red against the base's behaviour with the head's api/", "✅"
	case withAPI.state == passed:
		r.unproven("passes against the base's behaviour once given the head's api/ names", true)
	case withAPI.state != uncompiled:
		r.verdict = "the run against the base with the head's api/ proves nothing"
	case s.kind == unit:
		// The usual red of a unit test: what it tests does not exist yet. Whether it can fail is
		// the sweep's to show: make mutate-sweep BASE= tries every break of the lines changed.
		r.verdict, r.tick = "written first: does not compile against the base, even with the head's api/", "✅"
	case wired.state == failed:
		// Its suite wires what the change adds (its operator's webhooks, say): the base's wiring
		// runs the base's behaviour.
		r.verdict, r.tick = "written first: red against the base's behaviour with the head's api/, as the base wires its scenarios", "✅"
	case wired.state == passed:
		r.unproven("passes against the base's behaviour once given the head's api/ names, as the base wires its scenarios", true)
	case wired.state == broken:
		r.verdict = "the run against the base with the head's api/, as the base wires its scenarios, proves nothing"
	default:
		// A scenario that needs more of the head than api/'s names and the wiring of its suite (a
		// harness change, or a helper of scenarios/samples, say).
		r.unproven("does not compile against the base even with the head's api/, nor as the base wires its scenarios, so it was never seen red against the base's behaviour", false)
	}
	return r
}

// unstatedCharacterization says why a characterization spec's statements say nothing: its reason,
// or its statement that no break reaches it; "" when they say something, or it is no such spec.
func unstatedCharacterization(s spec) string {
	switch {
	case !s.characterization:
		return ""
	case !statesWhy(s.reason):
		return "labelled characterization without its reason: say what it pins and why it came after the code, as " + characterizationForm
	case s.noBreak != "" && !statesPromise(s.noBreak):
		return "its statement that no break reaches it says nothing (" + s.noBreak + "): say which promise no break of the code it runs can reach, and why, as " + noBreakForm
	}
	return ""
}

// The checks a row's spec needs at the head against the breaks of the production code it reaches.
const (
	noBreaks = iota // none
	alone           // a characterization spec: does it fail against any? (sweeper.Tree.FailsAlone)
	guarded         // a rewritten spec: is each killed by a test that reaches it? (sweeper.Tree.Guarded)
)

// needs is the check of breaks r's spec needs: a characterization spec must fail against one of
// them; a rewritten one leaves each killed.
func (r row) needs() int {
	switch {
	case r.tick == "✅" && strings.HasPrefix(r.verdict, characterizationVerdict):
		return alone
	case r.tick == "⚠️" && r.spec.rewrite != "" && r.spec.change != removed:
		return guarded
	}
	return noBreaks
}

// swept are the tiers the mutation sweep runs a spec on.
var swept = []string{"unit", "envtest"}

// unswept judges a row whose spec's tier the sweep does not run, so that no break can be tried.
func (r *row) unswept() {
	why := "no break was tried against it: the mutation sweep runs the unit tests and the envtest tier, not " + r.spec.tier
	if r.needs() == alone {
		r.failsAgainstNone(why)
		return
	}
	r.then(why)
}

// then adds a clause to the row's verdict, after a semicolon in place of the full stop that may end
// a reason.
func (r *row) then(clause string) {
	r.verdict = strings.TrimSuffix(r.verdict, ".") + "; " + clause
}

// failsAlone judges a characterization row by the breaks its spec reaches (reached), of which it
// was tried against those tried, alone, up to the first that failed it: it must fail against one,
// or state which promise no break can reach.
func (r *row) failsAlone(reached int, tried []sweeper.Verdict) {
	if i := slices.IndexFunc(tried, sweeper.Verdict.Killed); i >= 0 {
		r.then("fails against: " + tried[i].Break.ID() + " (" + tried[i].Where + ")")
		return
	}
	why := fmt.Sprintf("no break of the production code it reaches fails it (%d reached, tried against it alone", reached)
	if unanswered := len(slices.DeleteFunc(slices.Clone(tried), func(v sweeper.Verdict) bool { return v.Err == "" })); unanswered > 0 {
		why += fmt.Sprintf(", %d without a verdict", unanswered)
	}
	r.failsAgainstNone(why + ")")
}

// failsAgainstNone judges a characterization row that no break was seen to fail, why says.
func (r *row) failsAgainstNone(why string) {
	if r.spec.noBreak != "" { // statesPromise, or judge refused it
		r.verdict, r.tick = noBreakVerdict+": "+strings.TrimPrefix(r.verdict, characterizationVerdict+": "), "⚠️"
		r.then(why + ", and it states: " + r.spec.noBreak)
		return
	}
	r.verdict, r.tick = why+": make it able to fail, or state in its comment which promise no break of the code it runs can reach, and why, as "+noBreakForm, "❌"
}

// guardedBy judges a rewritten row by the sweep of the breaks its spec reaches: each must be
// killed by a test that reaches it, or be listed in equivalent (the head's list).
func (r *row) guardedBy(verdicts []sweeper.Verdict, equivalent map[string]string) {
	var survivors, unanswered []string
	for _, v := range verdicts {
		_, listed := equivalent[v.Break.ID()]
		switch {
		case v.Err != "":
			unanswered = append(unanswered, fmt.Sprintf("%s:%d `%s`: %s", v.Break.File, v.Break.Line, v.Break.ID(), specreport.Gist(v.Err)))
		case !v.Killed() && !listed:
			survivors = append(survivors, fmt.Sprintf("%s:%d `%s` (reached by: %s)", v.Break.File, v.Break.Line, v.Break.ID(), some(v.Reach)))
		}
	}
	if len(survivors)+len(unanswered) == 0 {
		r.then(fmt.Sprintf("the sweep of the %d breaks it reaches: each killed by a test that reaches it, or listed equivalent", len(verdicts)))
		return
	}
	r.tick = "❌"
	if len(survivors) > 0 {
		r.then(fmt.Sprintf("but %d break(s) of the lines it reaches survive every test that reaches them, which a rewrite must not leave: %s", len(survivors), strings.Join(survivors, "; ")))
	}
	if len(unanswered) > 0 {
		r.then(fmt.Sprintf("%d break(s) of the lines it reaches without a verdict: %s", len(unanswered), strings.Join(unanswered, "; ")))
	}
}

// some names the first few of the tests that reach a break, and how many more: a constant of a
// package is reached by every test of it, as the package starts.
func some(tests []string) string {
	const few = 3
	if len(tests) <= few {
		return cmp.Or(strings.Join(tests, "; "), "no test")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(tests[:few], "; "), len(tests)-few)
}

// The first words of the verdicts that the summary counts apart.
const (
	characterizationVerdict = "characterization"
	noBreakVerdict          = "characterization no break fails"
)

// unproven judges a spec not seen red against the base (green: it passed): allowed to new characterizations, stated rewrites.
func (r *row) unproven(why string, green bool) {
	s := r.spec
	switch {
	case green && s.characterization && s.change == added:
		r.verdict, r.tick = characterizationVerdict+": "+why+", as its label says: "+s.reason, "✅"
		return
	case green && s.characterization:
		why += ", as a changed characterization spec does by nature: weakening one is a rewrite"
	}
	hint := "if it describes behaviour the base already has, label it " + Characterization
	if s.change == changed {
		hint = "if it only rewrites the spec"
	}
	r.verdict = why + ": not written first (" + hint + "; a rewrite, a rename or a split of existing specs is stated in a commit of the change by a trailer `" + RewriteTrailer + ": <the spec's name>`)"
	if s.rewrite != "" {
		r.verdict, r.tick = "rewritten: "+why+"; "+s.rewrite+" states it rewrites the spec", "⚠️"
	}
}

// judgeRemoval says what a spec that the base has and the head lacks makes it: allowed where a
// commit of the change states its removal, which the table shows (⚠️), the commit's subject its reason.
func judgeRemoval(s spec) row {
	r := row{spec: s, tick: "❌", verdict: "removed, and no commit of the change states it: a spec removed, or renamed (by its old name), is stated in a commit " +
		"of the change, whose subject says why, by a trailer `" + RemovedTrailer + ": <the spec's name>`"}
	if s.removal != "" {
		r.verdict, r.tick = "removed: "+s.removal+" states it", "⚠️"
	}
	return r
}

type report struct {
	base, head        string // the revisions, as given, and their commits
	rows              []row
	equivalents       []equivalent // the entries the change adds to the sweep's equivalence list
	stale, production []string     // statements naming no spec or entry of the change; production files changed
	took              time.Duration
}

// failures names every spec that does not show test-first.
func (rp report) failures() []string {
	var out []string
	for _, r := range rp.rows {
		if !r.ok() {
			out = append(out, fmt.Sprintf("%s %q: %s", r.spec.kind, r.spec.name, r.verdict))
		}
	}
	for _, e := range rp.equivalents {
		if e.statement == "" {
			out = append(out, fmt.Sprintf("equivalent break %q: %s", e.id, unstatedEquivalent))
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
	p("names to compile, and with the base's `scenarios/samples` where the suite wires what the base lacks),\n")
	p("where it must fail inside the spec, and at the head, where it must pass. Each\n")
	p("spec the base has and the head lacks (removed, or renamed) is listed with the commit that states\n")
	p("its removal and why. A characterization spec runs at the head against the breaks of the\n")
	p("production code it reaches, one of which must fail it; a rewritten spec is judged by the sweep of\n")
	p("those breaks, each of which a test that reaches it must kill.\n\n")
	p("| Spec | Change | Tier | Against the base | At the head | Verdict |\n|---|---|---|---|---|---|\n")
	count := map[string]int{} // the ✅ and ⚠️ rows, by their verdict's first words
	for _, r := range rp.rows {
		if r.ok() {
			count[strings.SplitN(r.verdict, ":", 2)[0]]++
		}
		against := mark(r.base)
		if r.base.state == uncompiled && r.withAPI != (outcome{}) {
			against += "; with the head's api/: " + mark(r.withAPI)
		}
		if r.withAPI.state == uncompiled && r.wired != (outcome{}) {
			against += "; as the base wires its scenarios: " + mark(r.wired)
		}
		p("| %s | %s | %s | %s | %s | %s %s |\n", specreport.Cell(r.spec.kind+": "+r.spec.name), r.spec.change, cmp.Or(r.spec.tier, "—"),
			against, mark(r.head), r.tick, specreport.Cell(r.verdict))
	}
	verdict, production := "no production code changed either", "\nProduction code unchanged.\n"
	if len(rp.production) > 0 {
		verdict = "production code changed without a new or changed spec: allowed (a refactor, say), and shown"
		production = fmt.Sprintf("\nProduction code changed: `%s`.\n", strings.Join(rp.production, "`, `"))
	}
	if len(rp.rows) == 0 {
		p("| *no new or changed spec* | — | — | — | — | %s |\n", verdict)
	}
	p("%s", production)
	if len(rp.equivalents) > 0 {
		p("\nBreaks this change adds to the sweep's equivalence list (`%s`), which the sweep then leaves\n", equivalentFile)
		p("unscored, each with the reason it gives:\n\n| Break | Why no behaviour can observe it | Verdict |\n|---|---|---|\n")
	}
	for _, e := range rp.equivalents {
		verdict := "❌ " + unstatedEquivalent
		if e.statement != "" {
			verdict = "⚠️ " + e.statement + " states it"
		}
		p("| %s | %s | %s |\n", specreport.Cell(e.id), specreport.Cell(e.reason), specreport.Cell(verdict))
	}
	for _, st := range rp.stale {
		p("\n❌ %s\n", st)
	}
	p("\n%d spec(s): ✅ %d written first, ✅ %d characterization, ⚠️ %d characterization no break fails, ⚠️ %d rewrites stated, ⚠️ %d removals stated, ❌ %d not shown test-first. Took %s.\n",
		len(rp.rows), count["written first"], count[characterizationVerdict], count[noBreakVerdict], count["rewritten"], count["removed"], len(rp.failures()), rp.took.Round(time.Second))
	return b.String()
}

// unstatedEquivalent is the verdict on a new entry of the equivalence list that no commit states.
const unstatedEquivalent = "no commit of the change states it: a trailer `" + EquivalentTrailer + ": <the break's ID>`, in a commit whose subject says why"

// mark is an outcome as a cell of the table.
func mark(o outcome) string {
	return [...]string{none: "—", passed: "passed", failed: "failed: ", broken: "no verdict: "}[o.state] + specreport.Cell(o.detail)
}
