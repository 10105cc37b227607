// Command catalogue writes scenarios/README.md, the scenario catalogue, from the scenario specs
// themselves: each scenario file's doc comment (behaviour, lesson, source, how to try it by hand)
// and its Ginkgo tree (Context and It texts, By steps, table entries, labels). What the catalogue
// says is therefore what the specs check. `make catalogue` runs it; `make verify` fails when the
// committed catalogue differs from what it writes.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"example.com/operator-demo/testing/mutate/mutants"
	"example.com/operator-demo/testing/specsource"
	"example.com/operator-demo/testing/tiers"
)

// scenario is one scenario file: its doc comment and its specs.
type scenario struct {
	file      string
	line      int
	title     string // "Create"
	behaviour string // "a new Sample gets ..."
	lesson    string
	source    source
	where     string // where in the source: "§10, `kubectl apply ...`: the ConfigMap appears"
	byHand    string
	labels    []string
	specs     []spec
}

// spec is one It (or table Entry) with the containers above it and its By steps.
type spec struct {
	path   []string // Context texts, outermost first
	text   string
	line   int
	steps  []string
	labels []string
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: catalogue SCENARIO_DIR OUTPUT")
		os.Exit(2)
	}
	scenarios, err := read(os.Args[1])
	if err == nil && len(problems) > 0 {
		err = errors.New(strings.Join(problems, "; "))
	}
	if err == nil {
		err = writeIfChanged(os.Args[2], render(scenarios))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogue:", err)
		os.Exit(1)
	}
}

// writeIfChanged leaves a file whose content is already right untouched: go test keys the files a
// test opens on their modification time, and a rewrite of the same bytes would rerun them.
func writeIfChanged(path string, content []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
		return nil
	}
	return os.WriteFile(path, content, 0o644)
}

func read(dir string) ([]scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []scenario
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR || gen.Doc == nil {
				continue
			}
			call := describeCall(gen)
			if call == nil {
				continue
			}
			s, err := parseDoc(gen.Doc.Text())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
			}
			s.file = filepath.Base(path)
			s.line = fset.Position(gen.Pos()).Line
			s.labels = labelsOf(call.Args)
			walk(fset, call, nil, &s.specs)
			if order(s) == len(readingOrder) {
				problems = append(problems, fmt.Sprintf("%s: scenario %q has no label in the catalogue's reading order", s.file, s.title))
			}
			if want := fileOf(s.labels); s.file != want {
				problems = append(problems, fmt.Sprintf("%s: scenario %q is labelled %v: its file should be %s, named for its first label", s.file, s.title, s.labels, want))
			}
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b scenario) int { return order(a) - order(b) })
	for _, m := range mutants.All {
		if !slices.ContainsFunc(out, func(s scenario) bool { return slices.Contains(s.labels, m.Scenario) }) {
			problems = append(problems, fmt.Sprintf("mutant %q names scenario %q, which no scenario is labelled", m.Break, m.Scenario))
		}
	}
	return out, nil
}

// readingOrder is the order a newcomer should read the scenarios in, by their first label: the
// seven behaviours in the article's order, then the rest. A scenario missing here is a problem,
// not a silent last place.
var readingOrder = []string{"create", "skip-when-equal", "update", "unwatched-drift", "owned-drift", "gc", "status-loop", "conflict", "refused-write", "validation", "concurrency", "operator-restart", "killed-mid-run", "metrics"}

// fileOf is the file a scenario with these labels is written in: its first label, with
// underscores ("skip-when-equal" is in skip_when_equal_test.go).
func fileOf(labels []string) string {
	if len(labels) == 0 {
		return "(a file named for its first label; it has none)"
	}
	return strings.ReplaceAll(labels[0], "-", "_") + "_test.go"
}

// source is a document the scenarios come from.
type source struct {
	// name is how a scenario's Source: paragraph begins; short is the catalogue's column.
	name, short string
	// about says what the document is and what the project takes from it.
	about string
}

// sources are the documents a scenario may name, in the order the catalogue lists them.
var sources = []source{
	{
		name:  "the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in Japanese)",
		short: "Article",
		about: "resources, controllers, the API server and the reconcile loop, then a kubebuilder walkthrough (§10) of this very operator on a kind cluster; `make demo` follows that walkthrough",
	},
	{
		name:  "the Kubernetes Operator lecture notes",
		short: "Lecture notes",
		about: "operators in production (leader election, rate limiting, concurrency, cache scoping, metrics), the test pyramid (unit, envtest, kind), and the failures operators commonly have: status updates that loop, children leaked without owner references, errors swallowed, watches missing",
	},
	{
		name:  "beyond both sources",
		short: "Beyond both",
		about: "what an operator that others rely on must do as well, which neither document shows",
	},
}

// describe is the source's entry in the catalogue's list of sources.
func (src source) describe() string {
	if src.name == sources[len(sources)-1].name {
		return src.about
	}
	return src.name + ": " + src.about
}

func order(s scenario) int {
	for i, l := range readingOrder {
		if slices.Contains(s.labels, l) {
			return i
		}
	}
	return len(readingOrder)
}

// describeCall is the Describe(...) call of `var _ = Describe(...)`, or nil.
func describeCall(gen *ast.GenDecl) *ast.CallExpr {
	if len(gen.Specs) != 1 {
		return nil
	}
	vs, ok := gen.Specs[0].(*ast.ValueSpec)
	if !ok || len(vs.Values) != 1 {
		return nil
	}
	call, ok := vs.Values[0].(*ast.CallExpr)
	if !ok || specsource.Name(call) != "Describe" {
		return nil
	}
	return call
}

// parseDoc reads a scenario's doc comment:
//
//	Title: behaviour.
//
//	Lesson: ...
//
//	Source: <one of sources' names>, <where in it>: ...
//
//	By hand: ... (the rest, code indented)
func parseDoc(doc string) (scenario, error) {
	var s scenario
	title, rest, ok := strings.Cut(doc, "\n\n")
	if !ok {
		return s, errors.New("doc comment has one paragraph; want paragraphs Title: behaviour, Lesson, Source, By hand")
	}
	s.title, s.behaviour, ok = strings.Cut(oneLine(title), ": ")
	if !ok {
		return s, fmt.Errorf("first line %q is not \"Title: behaviour\"", title)
	}
	for _, para := range strings.Split(rest, "\n\n") {
		para = strings.TrimSpace(para)
		switch {
		case strings.HasPrefix(para, "Lesson: "):
			s.lesson = capitalise(oneLine(strings.TrimPrefix(para, "Lesson: ")))
		case strings.HasPrefix(para, "Source: "):
			var err error
			if s.source, s.where, err = parseSource(oneLine(strings.TrimPrefix(para, "Source: "))); err != nil {
				return s, fmt.Errorf("scenario %q: %w", s.title, err)
			}
		case strings.HasPrefix(para, "By hand"):
			s.byHand = strings.TrimSpace(rest[strings.Index(rest, "By hand"):])
		}
	}
	if s.lesson == "" || s.source.name == "" || s.byHand == "" {
		return s, fmt.Errorf("scenario %q lacks a Lesson:, Source: or By hand: paragraph", s.title)
	}
	return s, nil
}

// parseSource splits a Source: paragraph into the source it names and where in that source.
func parseSource(text string) (source, string, error) {
	for _, src := range sources {
		if where, ok := strings.CutPrefix(text, src.name); ok {
			return src, capitalise(strings.TrimLeft(where, ",: ")), nil
		}
	}
	names := make([]string, len(sources))
	for i, src := range sources {
		names[i] = fmt.Sprintf("%q", src.name)
	}
	return source{}, "", fmt.Errorf("the Source: paragraph %q names none of the sources; it begins with one of %s", text, strings.Join(names, ", "))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// walk collects the specs under a Ginkgo container call.
func walk(fset *token.FileSet, call *ast.CallExpr, path []string, out *[]spec) {
	ast.Inspect(call, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || c == call {
			return true
		}
		switch specsource.Name(c) {
		case "Context", "Describe", "When":
			walk(fset, c, append(slices.Clone(path), stringArg(c)), out)
			return false
		case "It":
			*out = append(*out, spec{path: path, text: stringArg(c), line: fset.Position(c.Pos()).Line, steps: steps(c), labels: labelsOf(c.Args)})
			return false
		case "DescribeTable":
			table := stringArg(c)
			body := steps(c)
			for _, arg := range c.Args {
				if e, ok := arg.(*ast.CallExpr); ok && specsource.Name(e) == "Entry" {
					*out = append(*out, spec{path: path, text: table + ": " + stringArg(e), line: fset.Position(e.Pos()).Line, steps: body})
				}
			}
			return false
		}
		return true
	})
}

// steps are the By texts inside a spec, in order.
func steps(call *ast.CallExpr) []string {
	var out []string
	ast.Inspect(call, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && specsource.Name(c) == "By" {
			out = append(out, stringArg(c))
		}
		return true
	})
	return out
}

// problems are what the catalogue cannot render truthfully: a text that is not a string literal,
// a label it does not know. main fails on any.
var problems []string

func stringArg(c *ast.CallExpr) string {
	if len(c.Args) > 0 {
		if lit, ok := c.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				return s
			}
		}
	}
	problems = append(problems, specsource.Name(c)+"(...): its text is not a string literal")
	return "?"
}

// needs maps the label constants of package tiers to their values.
var needs = map[string]string{
	"NeedsInProcessOperator": tiers.NeedsInProcessOperator,
	"NeedsOperatorProcess":   tiers.NeedsOperatorProcess,
	"NeedsKill":              tiers.NeedsKill,
	"NeedsGarbageCollector":  tiers.NeedsGarbageCollector,
}

// labelsOf reads the Label(...) decorators among a container's arguments.
func labelsOf(args []ast.Expr) []string {
	var out []string
	for _, arg := range args {
		c, ok := arg.(*ast.CallExpr)
		if !ok || specsource.Name(c) != "Label" {
			continue
		}
		for _, a := range c.Args {
			switch v := a.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(v.Value); err == nil {
					out = append(out, s)
				}
			case *ast.SelectorExpr:
				l, ok := needs[v.Sel.Name]
				if !ok {
					problems = append(problems, "unknown label "+v.Sel.Name)
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// tiersOf are the tiers that run a spec with these labels.
func tiersOf(labels []string) []string {
	var out []string
	for _, t := range tiers.All {
		if t.Runs(labels...) {
			out = append(out, t.Name)
		}
	}
	return out
}

func anchor(title string) string {
	return strings.ReplaceAll(strings.ToLower(title), " ", "-")
}

func render(scenarios []scenario) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("<!-- Generated by `make catalogue` from the scenario specs (scenarios/*_test.go). Do not edit: edit the specs. -->\n\n")
	p("# Scenario catalogue\n\n")
	p("Every behaviour of the Sample operator, as the executable scenario that proves it. Each entry is\n")
	p("generated from the spec itself: the sentence and lesson from its doc comment, the steps from its\n")
	p("`By(...)` calls, the tiers from its labels. If it is written here, a test checks it; and each\n")
	p("break listed under a scenario is built into the operator by `make mutate`, which checks that the\n")
	p("scenario fails against it.\n\n")
	p("Run them: `make test-envtest` (envtest tier), `make test-e2e` (e2e tier), or one scenario with\n")
	p("`go test ./scenarios/ -ginkgo.label-filter=owned-drift`. Try them by hand on `make demo KEEP=1`.\n\n")
	p("## Who watches what\n\n")
	p("```mermaid\nflowchart LR\n")
	p("  user([you, kubectl]) -- create / patch / delete --> sample[Sample]\n")
	p("  user -. edit / delete .-> cm[ConfigMap &lt;name&gt;-config]\n")
	p("  sample -- \"spec change (generation)\" --> queue{{work queue}}\n")
	p("  cm -- \"change or deletion, mapped to its controller owner (Owns)\" --> queue\n")
	p("  queue --> reconcile[Reconcile]\n")
	p("  reconcile -- \"create / merge patch, only when different\" --> cm\n")
	p("  reconcile -- \"status, only when different\" --> sample\n")
	p("  gc[garbage collector] -- \"deletes dependents of a deleted owner\" --> cm\n")
	p("```\n\n")
	p("A status write changes no generation, so it starts no reconcile. Without `Owns`, the dotted\n")
	p("edits reach nobody (scenario *Ignore unwatched drift*).\n\n")
	p("## Index\n\n| Scenario | Behaviour | Tiers |\n|---|---|---|\n")
	for _, s := range scenarios {
		p("| [%s](#%s) | %s | %s |\n", s.title, anchor(s.title), s.behaviour, strings.Join(scenarioTiers(s), ", "))
	}
	p("\n## Where each scenario comes from\n\n")
	for _, src := range sources {
		p("- **%s**: %s.\n", src.short, src.describe())
	}
	p("\n| Scenario | Source | Where, and what it shows |\n|---|---|---|\n")
	for _, src := range sources {
		for _, s := range scenarios {
			if s.source.name == src.name {
				p("| [%s](#%s) | %s | %s |\n", s.title, anchor(s.title), src.short, s.where)
			}
		}
	}
	for _, s := range scenarios {
		p("\n## %s\n\n%s\n\n**Lesson.** %s\n\n", s.title, capitalise(s.behaviour), s.lesson)
		p("**Specs** ([%s](%s#L%d)):\n\n", s.file, s.file, s.line)
		for _, sp := range s.specs {
			p("- *%s* [%s](%s#L%d) — tiers: %s\n", strings.Join(append(slices.Clone(sp.path), "it "+sp.text), " › "), "spec", s.file, sp.line,
				strings.Join(tiersOf(append(slices.Clone(s.labels), sp.labels...)), ", "))
			for _, st := range sp.steps {
				p("  1. %s\n", st)
			}
		}
		if breaks := breaksCaught(s); len(breaks) > 0 {
			p("\n**Breaks it catches** (`make mutate` builds each into the operator and checks that this scenario fails):\n\n")
			for _, b := range breaks {
				p("- %s\n", b)
			}
		}
		p("\n%s", byHand(s.byHand))
	}
	return b.Bytes()
}

// breaksCaught are the mutants that s must fail against.
func breaksCaught(s scenario) []string {
	var out []string
	for _, m := range mutants.All {
		if slices.Contains(s.labels, m.Scenario) {
			out = append(out, m.Break)
		}
	}
	return out
}

// scenarioTiers are the tiers that run at least one of s's specs.
func scenarioTiers(s scenario) []string {
	var out []string
	for _, sp := range s.specs {
		for _, t := range tiersOf(append(slices.Clone(s.labels), sp.labels...)) {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return tierIndex(a) - tierIndex(b) })
	return out
}

func tierIndex(name string) int {
	return slices.IndexFunc(tiers.All, func(t tiers.Tier) bool { return t.Name == name })
}

func capitalise(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// byHand renders the "By hand" paragraph: its prose as text, its indented lines as a shell block.
func byHand(text string) string {
	var b strings.Builder
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		code := strings.HasPrefix(line, "\t")
		switch {
		case code && !inCode:
			b.WriteString("\n```sh\n")
		case !code && inCode && strings.TrimSpace(line) != "":
			b.WriteString("```\n\n")
		}
		if code {
			inCode = true
			b.WriteString(strings.TrimPrefix(line, "\t") + "\n")
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		inCode = false
		b.WriteString(line + "\n")
	}
	if inCode {
		b.WriteString("```\n")
	}
	return b.String()
}
