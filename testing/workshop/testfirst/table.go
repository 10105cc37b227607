package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"example.com/operator-demo/testing/workshop/mutate/sweep"
	"example.com/operator-demo/testing/workshop/mutate/trial"
	"example.com/operator-demo/testing/workshop/specreport"
)

// row is one spec, how it ended in each tree, and its verdict: ok, and warn when a reviewer should look all the same.
type row struct {
	spec                spec
	base, withAPI, head outcome
	verdict             string
	ok, warn            bool
}

// judge says what a spec's runs make it. Test-first is failing inside the spec against the base's
// behaviour (given the head's api/ if need be; a new function's test, against its break: bite), and passing at the head.
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
	case base.state == broken:
		r.verdict = "the run against the base proves nothing"
	case base.state != uncompiled:
		r.unproven("passed at the base", true)
	case withAPI.state == failed:
		r.verdict, r.ok = "written first: red against the base's behaviour with the head's api/", true
	case withAPI.state == passed:
		r.unproven("passes against the base's behaviour once given the head's api/ names", true)
	case withAPI.state != uncompiled:
		r.verdict = "the run against the base with the head's api/ proves nothing"
	default:
		r.withoutAPI(bite)
	}
	return r
}

// withoutAPI judges a spec that does not compile against the base even with the head's api/.
func (r *row) withoutAPI(bite outcome) {
	switch {
	case r.spec.kind == unit && bite.state == failed:
		// The usual red of a unit test: the function it tests does not exist yet. It can fail.
		r.verdict, r.ok = "written first: does not compile against the base, even with the head's api/, and fails against the break "+bite.detail, true
	case r.spec.kind == unit:
		r.unproven("does not compile against the base, even with the head's api/, but fails against "+bite.detail+": nothing shows it can fail", false)
	default:
		// A scenario that needs more of the head than api/'s names (a harness change, say).
		r.unproven("does not compile against the base even with the head's api/, so it was never seen red against the base's behaviour", false)
	}
}

// unproven judges a spec not seen red against the base (green: it passed): allowed to new characterizations, stated rewrites.
func (r *row) unproven(why string, green bool) {
	s := r.spec
	switch {
	case green && s.characterization && s.change == added:
		r.verdict, r.ok = "characterization: "+why+", as its label says: "+s.reason, true
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
		r.verdict, r.ok, r.warn = "rewritten: "+why+"; "+s.rewrite+" states it rewrites the spec", true, true
	}
}

type report struct {
	base, head        string // the revisions, as given, and their commits
	rows              []row
	stale, production []string // rewrite statements naming no changed spec; production files changed
	took              time.Duration
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
	count := map[string]int{} // the ✅ and ⚠️ rows, by their verdict's first words
	for _, r := range rp.rows {
		if r.ok {
			count[strings.SplitN(r.verdict, ":", 2)[0]]++
		}
		against := mark(r.base)
		if r.base.state == uncompiled && r.withAPI != (outcome{}) {
			against += "; with the head's api/: " + mark(r.withAPI)
		}
		p("| %s | %s | %s | %s | %s | %s %s |\n", specreport.Cell(r.spec.kind+": "+r.spec.name), r.spec.change, cmp.Or(r.spec.tier, "—"),
			against, mark(r.head), tick(r), specreport.Cell(r.verdict))
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
	for _, st := range rp.stale {
		p("\n❌ %s\n", st)
	}
	p("\n%d spec(s): ✅ %d written first, ✅ %d characterization, ⚠️ %d rewrites stated, ❌ %d not shown test-first. Took %s.\n",
		len(rp.rows), count["written first"], count["characterization"], count["rewritten"], len(rp.failures()), rp.took.Round(time.Second))
	return b.String()
}

// mark is an outcome as a cell of the table.
func mark(o outcome) string {
	if o.state == none || o.state == passed {
		return [...]string{none: "—", passed: "passed"}[o.state]
	}
	return [...]string{failed: "failed: ", broken: "no verdict: "}[o.state] + specreport.Cell(o.detail)
}

func tick(r row) string {
	if r.warn {
		return "⚠️"
	}
	return map[bool]string{true: "✅", false: "❌"}[r.ok]
}

// judgeAll judges each spec by its runs and, for a unit test of a function the change adds, by its bite.
func (c check) judgeAll(base, head *checkout, specs []spec, atBase, withAPI, atHead map[string]outcome) ([]row, error) {
	rows := make([]row, 0, len(specs))
	for _, s := range specs {
		k, bite := key(s), outcome{}
		if s.kind == unit && withAPI[k].state == uncompiled && atHead[k].state == passed {
			progress("%s does not compile against the base: running it against the breaks of the functions it tests", s.name)
			var err error
			if bite, err = head.bite(base.dir, s, filepath.Join(c.work, "bite", s.name)); err != nil {
				return nil, fmt.Errorf("%s against the breaks of the functions it tests: %w", s.name, err)
			}
		}
		rows = append(rows, judge(s, atBase[k], withAPI[k], atHead[k], bite))
	}
	return rows, nil
}

// bite runs the unit test s against the breaks of the functions it names that base lacks, up to the first it fails.
func (t *checkout) bite(base string, s spec, dir string) (outcome, error) {
	pkgDir := strings.TrimPrefix(s.pkg, "./")
	checker, breaks, _, err := sweep.Compiling(t.dir, []string{pkgDir}, func(b sweep.Break) bool {
		name := b.Func[strings.LastIndex(b.Func, ".")+1:]
		return b.Func != "" && slices.Contains(strings.Fields(s.body), name) && !declares(base, pkgDir, name)
	})
	if err != nil || len(breaks) == 0 {
		return outcome{passed, "no break: of the functions its package gains, it names none with a break that compiles"}, err
	}
	schema, err := sweep.Build(checker, breaks, func(overlay map[string]string) ([]byte, error) {
		return trial.Build(t.dir, dir, overlay, s.pkg)
	})
	if err != nil {
		return outcome{}, err
	}
	var tested []string
	for i, b := range breaks {
		built, env := dir, []string{sweep.Env + "=" + strconv.Itoa(i+1)}
		if !schema.Switched[i] {
			built, env = filepath.Join(dir, strconv.Itoa(i+1)), nil
			if out, err := trial.Build(t.dir, built, schema.Alone(b), s.pkg); err != nil {
				return outcome{}, fmt.Errorf("build %s: %w\n%s", b.ID(), err, out)
			}
		}
		v, err := trial.Unit(t.dir, built, s.pkg, env, []string{s.name}, trial.Notices)
		if err != nil || v.Failed {
			return outcome{failed, fmt.Sprintf("%s:%d %s %s: %s → %s", b.File, b.Line, b.Func, b.Operator, b.Was, b.Now)}, err
		}
		if !slices.Contains(tested, b.Func) {
			tested = append(tested, b.Func)
		}
	}
	return outcome{passed, fmt.Sprintf("none of the %d breaks of %s", len(breaks), strings.Join(tested, ", "))}, nil
}

// declares says whether the package in dir of the tree at root declares a func or method name.
func declares(root, dir, name string) bool {
	files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
	decl := regexp.MustCompile(`(?m)^func (\([^)]*\) )?` + regexp.QuoteMeta(name) + `[\[(]`)
	return slices.ContainsFunc(files, func(f string) bool {
		src, err := os.ReadFile(f)
		return err == nil && !strings.HasSuffix(f, "_test.go") && decl.Match(src)
	})
}
