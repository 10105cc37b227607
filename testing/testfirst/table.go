package main

import (
	"fmt"
	"strings"
	"time"
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

// judge says what a spec's runs make it. Test-first means: it fails against the base's
// production code, inside the spec (or does not compile against it), and passes at the head.
// allowRewrites: the change says it only rewrites specs, so a changed one may pass at the base.
func judge(s spec, base, withAPI, head outcome, allowRewrites bool) row {
	r := row{spec: s, base: base, withAPI: withAPI, head: head}
	switch {
	case s.tier == "":
		r.verdict = "not checked: no tier here runs it"
	case head.state == broken:
		r.verdict = "not checked: the run at the head proves nothing"
	case head.state != passed:
		r.verdict = "fails at the head"
	case base.state == failed:
		r.verdict, r.ok = "written first", true
	case base.state == uncompiled && withAPI.state == passed:
		r.verdict, r.ok, r.warn = "did not compile against the base, but passes against it once given the head's api/: does it test the new behaviour?", true, true
	case base.state == uncompiled:
		r.verdict, r.ok = "written first (did not compile against the base)", true
	case base.state == broken:
		r.verdict = "the run against the base proves nothing"
	case s.characterization:
		r.verdict, r.ok = "characterization: passed at the base, as its label says", true
	case s.change == changed && allowRewrites:
		r.verdict, r.ok, r.warn = "rewritten: passes against the base as before, which the change says is all it does (-allow-rewrites)", true, true
	default:
		r.verdict = "passed at the base: not written first (if it describes behaviour the base already has, label it " + Characterization + ")"
	}
	return r
}

// report is the whole result of a run.
type report struct {
	base, head string // the revisions, as given, and their commits
	rows       []row
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
	return out
}

// markdown renders the report as the table a reviewer reads.
func (rp report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Test first: %s..%s\n\n", rp.base, rp.head)
	p("Each spec this change adds or changes runs twice, as the head has it: against the base's production\n")
	p("code (`api/`, `controllers/`, `cmd/`, `config/crd/`), where it must fail inside the spec or not\n")
	p("compile, and at the head, where it must pass.\n\n")
	p("| Spec | Change | Tier | Against the base | At the head | Verdict |\n|---|---|---|---|---|---|\n")
	for _, r := range rp.rows {
		against := mark(r.base)
		if r.base.state == uncompiled && r.withAPI != (outcome{}) {
			against += "; with the head's api/: " + mark(r.withAPI)
		}
		p("| %s | %s | %s | %s | %s | %s %s |\n", cell(string(r.spec.kind)+": "+r.spec.name), r.spec.change, orDash(r.spec.tier),
			against, mark(r.head), tick(r), cell(r.verdict))
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
	var first, characterized int
	for _, r := range rp.rows {
		switch {
		case r.ok && r.spec.characterization && r.base.state == passed:
			characterized++
		case r.ok:
			first++
		}
	}
	p("\n%d spec(s): %d written first, %d characterization, %d not shown test-first. Took %s.\n",
		len(rp.rows), first, characterized, len(rp.failures()), rp.took.Round(time.Second))
	return b.String()
}

func mark(o outcome) string {
	switch o.state {
	case passed:
		return "passed"
	case failed:
		return "failed: " + cell(o.detail)
	case uncompiled:
		return cell(o.detail)
	default:
		return "no verdict: " + cell(o.detail)
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

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}
