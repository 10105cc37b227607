// Package specreport reads what a test run left behind, Ginkgo's JSON report (--json-report) or
// the events of `go test -json`, and says of each spec or test function whether it passed or
// failed, and where it failed: the step it was in (its last By), the line of the failed
// assertion, and the first line of the failure. make mutate, make mutate-sweep, make test-first,
// the bench and the catalogue read their runs through it, so all name a failure the same way.
package specreport

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"golang.org/x/mod/modfile"
)

// Result is what one run said of one spec or test function.
type Result struct {
	// Name is the spec's full text (containers and It, joined by spaces), or the test function's name.
	Name string
	// File and Line are where the spec's It (or Entry) is written, File relative to the tree.
	File string
	Line int
	// Labels are the spec's Ginkgo labels, its containers' included.
	Labels []string
	// Passed: it ran and passed. Skipped: it did not run (a label filter left it out).
	Passed, Skipped bool
	RunTime         time.Duration
	// InSpec: it failed in its own body or setup (It, BeforeEach, a test function), not in suite
	// setup or cleanup. Only such a failure says something about the behaviour under test.
	InSpec bool
	// Where it failed: the first line of the failure, the step it was in (the last By before it),
	// and the file:line of the failed assertion, relative to the tree the run was in.
	Message, Step, Location string
}

// Failed says that it ran and failed.
func (r Result) Failed() bool { return !r.Passed && !r.Skipped }

// Where says where the failure happened, in one line: "step: message (file:line)".
func (r Result) Where() string {
	var b strings.Builder
	if r.Step != "" {
		b.WriteString(r.Step + ": ")
	}
	b.WriteString(r.Message)
	if r.Location != "" {
		fmt.Fprintf(&b, " (%s)", r.Location)
	}
	return b.String()
}

// Suite is what one run of a Ginkgo suite reported.
type Suite struct {
	// Description is the suite's, as RunSpecs names it; Ginkgo's --focus matches it and a spec's
	// full text joined by a space.
	Description string
	Specs       []Result
	// Setup is the first failure outside any spec (a failed BeforeSuite, say), which makes every
	// spec's result meaningless; nil when there is none.
	Setup *Result
	// SetupTime is the time its suite's own nodes took (BeforeSuite, AfterSuite and the like).
	SetupTime time.Duration
}

// Run runs cmd, a Ginkgo suite's test binary or go test of it, with Ginkgo's JSON report written
// to report, and reads the report as that of a run in the tree at root. out is what cmd printed,
// ran is its own error (failed specs make one too), and err says that there is no report.
func Run(cmd *exec.Cmd, report, root string) (suite Suite, out []byte, ran, err error) {
	cmd.Args = append(cmd.Args, "-ginkgo.no-color", "-ginkgo.json-report="+report)
	out, ran = cmd.CombinedOutput()
	suite, err = Ginkgo(report, root)
	return suite, out, ran, err
}

// Reports reads the JSON report that Ginkgo wrote at path (--json-report), as Ginkgo's own types.
func Reports(path string) ([]types.Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(raw, &reports); err != nil {
		return nil, fmt.Errorf("read Ginkgo report %s: %w", path, err)
	}
	return reports, nil
}

// Ginkgo reads the JSON report at path, written by a suite run in the tree at root.
func Ginkgo(path, root string) (Suite, error) {
	var suite Suite
	reports, err := Reports(path)
	if err != nil {
		return suite, err
	}
	for _, report := range reports {
		suite.Description = report.SuiteDescription
		for _, spec := range report.SpecReports {
			r := ginkgoResult(spec, root)
			if spec.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) {
				suite.SetupTime += spec.RunTime
			}
			if !spec.LeafNodeType.Is(types.NodeTypeIt) {
				if r.Failed() && suite.Setup == nil {
					r.Name = spec.LeafNodeType.String()
					suite.Setup = &r
				}
				continue
			}
			suite.Specs = append(suite.Specs, r)
		}
	}
	return suite, nil
}

// FirstFailure is what failed first in the run: the suite's setup when it failed (InSpec false),
// else the first spec or test that failed; ok is false when nothing did. Whether a failure
// outside every spec counts is the reader's call: make mutate asks whether a scenario caught
// its break (it does not count), make mutate-sweep whether any test noticed (it does).
func (s Suite) FirstFailure() (r Result, ok bool) {
	if s.Setup != nil {
		return *s.Setup, true
	}
	i := slices.IndexFunc(s.Specs, Result.Failed)
	if i < 0 {
		return Result{}, false
	}
	return s.Specs[i], true
}

func ginkgoResult(spec types.SpecReport, root string) Result {
	r := Result{
		Name:    spec.FullText(),
		Labels:  spec.Labels(),
		Passed:  spec.State.Is(types.SpecStatePassed),
		Skipped: spec.State.Is(types.SpecStateSkipped | types.SpecStatePending),
		File:    relativeFile(root, spec.LeafNodeLocation.FileName),
		Line:    spec.LeafNodeLocation.LineNumber,
		RunTime: spec.RunTime,
	}
	if !r.Failed() {
		return r
	}
	f := spec.Failure
	node := f.FailureNodeType
	if f.FailureNodeContext == types.FailureNodeIsLeafNode {
		node = spec.LeafNodeType
	}
	r.InSpec = node.Is(types.NodeTypeIt | types.NodeTypeBeforeEach | types.NodeTypeJustBeforeEach)
	r.Message = Gist(f.Message)
	if f.ForwardedPanic != "" {
		r.Message = "panic: " + Gist(f.ForwardedPanic)
	}
	if f.Location.FileName != "" {
		r.Location = fmt.Sprintf("%s:%d", relativeFile(root, f.Location.FileName), f.Location.LineNumber)
	}
	for _, e := range spec.SpecEvents {
		if e.SpecEventType == types.SpecEventByStart && e.TimelineLocation.Order <= f.TimelineLocation.Order {
			r.Step = e.Message
		}
	}
	return r
}

// compilerLine is an error line of the compiler's output ("file.go:3:2: undefined: x"), or "".
func compilerLine(output string) string {
	line := strings.TrimSpace(output)
	if line == "" || strings.HasPrefix(line, "#") {
		return ""
	}
	return line
}

// CompilerErrors are the error lines in the output of a failed `go build` or `go test -c`, one a
// line, without the lines that only name a package.
func CompilerErrors(output string) string {
	var lines []string
	for line := range strings.SplitSeq(output, "\n") {
		if l := compilerLine(line); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// CompilerCause is the compiler error that says why a spec in file does not build: the first that
// names something undefined in that file (the usual cause: a name the change has not added yet),
// else the first undefined name anywhere, else the first error of that file, else the first of
// all. Errors that merely follow from the cause ("imported and not used") come before it as often
// as not, so the first line alone can blame the wrong thing or the wrong file.
func CompilerCause(output, file string) string {
	lines := strings.Split(CompilerErrors(output), "\n")
	inFile := func(l string) bool {
		name, _, _ := strings.Cut(l, ":")
		name = filepath.ToSlash(strings.TrimPrefix(name, "./"))
		return name == filepath.ToSlash(file) || strings.HasSuffix(name, "/"+filepath.ToSlash(file))
	}
	undefined := func(l string) bool { return strings.Contains(l, ": undefined: ") }
	for _, choose := range []func(string) bool{
		func(l string) bool { return inFile(l) && undefined(l) },
		undefined,
		inFile,
		func(l string) bool { return l != "" },
	} {
		if i := slices.IndexFunc(lines, choose); i >= 0 {
			return lines[i]
		}
	}
	return "does not build"
}

// Gist is a failure message in one line of at most about 200 characters: Gomega's own words
// ("Timed out after 10s: configmaps "x" not found"), without the lines that only frame them and
// without the dump of the object that follows.
func Gist(message string) string {
	var words []string
	for line := range strings.SplitSeq(message, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || frame.MatchString(line):
			continue
		case strings.HasPrefix(line, "{"):
			return clip(strings.Join(words, " "))
		}
		if len(words) == 1 && elapsed.MatchString(words[0]) {
			words[0] = strings.TrimSuffix(words[0], ".") + ":"
		}
		// A line that opens a dump ("<[]v1.Condition | len:1>: [") ends the gist.
		if opened := strings.TrimRight(line, "[{ "); opened != line {
			return clip(strings.Join(append(words, opened), " "))
		}
		if words = append(words, line); len(words) == 6 {
			break
		}
	}
	return clip(strings.Join(words, " "))
}

var (
	// elapsed opens an Eventually or Consistently failure.
	elapsed = regexp.MustCompile(`^(Timed out|Failed) after [0-9.]+m?s\.$`)
	// frame matches lines that only frame what failed: which function, and a pointer's type.
	frame = regexp.MustCompile(`^(The function passed to (Eventually|Consistently) (failed at .* with:|returned the following error:)|Expected success, but got an error:|<[^>]*\| 0x[0-9a-f]+>: ?)$`)
)

// Focus is the regular expression that Ginkgo's --focus matches against exactly the named specs:
// it matches the suite's description and a spec's full text, joined by a space.
func Focus(description string, names []string) string {
	return "^" + regexp.QuoteMeta(description) + " " + AnyOf(names) + "$"
}

// AnyOf is the regular expression that matches any one of names, as it is.
func AnyOf(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return "(?:" + strings.Join(quoted, "|") + ")"
}

// Cell is s as one cell of a Markdown table, as the tools print what they read: on one line,
// its pipes escaped.
func Cell(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "|", `\|`)), " ")
}

func clip(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}

// relativeFile is file relative to root. A binary built with -trimpath names its files by
// module path ("example.com/operator-demo/scenarios/x_test.go"): the module's own lose that prefix.
func relativeFile(root, file string) string {
	if !filepath.IsAbs(file) {
		if module, err := ModulePath(root); err == nil {
			return strings.TrimPrefix(file, module+"/")
		}
		return file
	}
	if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return file
}

// ModulePath is the module path that dir's go.mod declares.
func ModulePath(dir string) (string, error) {
	path := filepath.Join(dir, "go.mod")
	gomod, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if m := modfile.ModulePath(gomod); m != "" {
		return m, nil
	}
	return "", fmt.Errorf("%s names no module", path)
}
