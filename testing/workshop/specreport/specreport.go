// Package specreport reads Ginkgo's JSON report and go test -json: what passed, where it failed.
package specreport

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
	"golang.org/x/mod/modfile"
)

// Result is one run's word on a spec or test function. InSpec: it failed in its own body or setup,
// not the suite's; TimedOut: it failed by not ending within the run's timeout. Step is the last By
// before the failure; files are relative to the run's tree.
type Result struct {
	Name, File                        string
	Line                              int
	Labels                            []string
	Passed, Skipped, InSpec, TimedOut bool // Skipped: it did not run (a label filter left it out, or it is Pending)
	Pending                           bool // marked pending: see PendingGap
	Message, Step, Location           string
}

// PendingGap says why the tools refuse a spec that Ginkgo reports pending.
const PendingGap = "a pending spec is a gap hidden from the run: Ginkgo never runs it, and the suite passes all the same; " +
	"write its body or delete it (PIt, XIt, PDescribe, PContext, PEntry, XEntry and the Pending decorator mark a spec pending)"

// GoTimeout starts what a test binary says when its -test.timeout ends it.
const GoTimeout = "panic: test timed out after "

// Failed says that it ran and failed.
func (r Result) Failed() bool { return !r.Passed && !r.Skipped }

// Where says where the failure happened, in one line: "step: message (file:line)".
func (r Result) Where() string {
	where := strings.TrimPrefix(r.Step+": "+r.Message, ": ") // no step, no "step: "
	if r.Location != "" {
		where += " (" + r.Location + ")"
	}
	return where
}

// Suite is one run of a Ginkgo suite: Setup, its first failure outside any spec.
type Suite struct {
	Description string
	Specs       []Result
	Setup       *Result
}

// Run runs cmd, a suite's test binary or go test, and reads the JSON report it writes at report,
// its files named relative to root, the tree the suite was built in; ran is cmd's own error.
func Run(cmd *exec.Cmd, report, root string) (suite Suite, out []byte, ran, err error) {
	cmd.Args = append(cmd.Args, "-ginkgo.no-color", "-ginkgo.json-report="+report)
	out, ran = cmd.CombinedOutput()
	reports, err := Reports(report)
	for _, report := range reports {
		suite.Description = report.SuiteDescription
		for _, spec := range report.SpecReports {
			r := ginkgoResult(spec, root)
			if spec.LeafNodeType.Is(types.NodeTypeIt) {
				suite.Specs = append(suite.Specs, r)
			} else if r.Failed() && suite.Setup == nil {
				r.Name = spec.LeafNodeType.String()
				suite.Setup = &r
			}
		}
	}
	return suite, out, ran, err
}

// Reports reads the JSON report that Ginkgo wrote at path, as Ginkgo's own types.
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

// FirstFailure is the failed setup, else the first failed spec or test, if any.
func (s Suite) FirstFailure() (r Result, ok bool) {
	if s.Setup != nil {
		return *s.Setup, true
	}
	if i := slices.IndexFunc(s.Specs, Result.Failed); i >= 0 {
		return s.Specs[i], true
	}
	return Result{}, false
}

func ginkgoResult(spec types.SpecReport, root string) Result {
	r := Result{Name: spec.FullText(), File: relativeFile(root, spec.LeafNodeLocation.FileName), Line: spec.LeafNodeLocation.LineNumber,
		Labels: spec.Labels(), Passed: spec.State.Is(types.SpecStatePassed),
		Skipped: spec.State.Is(types.SpecStateSkipped | types.SpecStatePending), Pending: spec.State.Is(types.SpecStatePending),
		TimedOut: spec.State.Is(types.SpecStateTimedout)}
	if !r.Failed() {
		return r
	}
	f := spec.Failure
	r.InSpec = f.FailureNodeType.Is(types.NodeTypeIt | types.NodeTypeBeforeEach | types.NodeTypeJustBeforeEach)
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

// GoTest reads go test -json's events: a Result per top-level test, and what the build said if a
// package did not build ("does not build" if it said nothing).
func GoTest(events []byte) (tests Suite, buildErrors string, err error) {
	index, failedBuild := map[string]int{}, false
	for dec := json.NewDecoder(bytes.NewReader(events)); dec.More(); {
		var e struct{ Action, Test, Output, FailedBuild string } // cmd/test2json's
		if err := dec.Decode(&e); err != nil {
			return Suite{}, "", fmt.Errorf("read go test -json: %w", err)
		}
		if e.Action == "build-output" {
			buildErrors += e.Output
		}
		failedBuild = failedBuild || e.FailedBuild != ""
		// A subtest's output tells where its test failed; its verdict is its test's.
		if name, subtest, _ := strings.Cut(e.Test, "/"); name != "" {
			i, ok := index[name]
			if !ok {
				i, index[name] = len(tests.Specs), len(tests.Specs)
				tests.Specs = append(tests.Specs, Result{Name: name})
			}
			tests.Specs[i].record(e.Action, e.Output, subtest != "")
		}
	}
	if !failedBuild {
		return tests, "", nil
	}
	return tests, cmp.Or(buildErrors, "does not build"), nil
}

// testLogLine is a line that t.Error or t.Fatal printed: "    file_test.go:42: message".
var testLogLine = regexp.MustCompile(`^\s+(\S+_test\.go:\d+): (.*)$`)

func (r *Result) record(action, output string, subtest bool) {
	switch {
	case action == "output" && strings.HasPrefix(output, GoTimeout):
		r.TimedOut, r.Message, r.Location = true, strings.TrimSpace(output), ""
	case action == "output":
		if m := testLogLine.FindStringSubmatch(strings.TrimRight(output, "\n")); m != nil && r.Location == "" {
			r.Location, r.Message = m[1], strings.TrimSpace(m[2])
		}
	case subtest:
	case action == "pass":
		r.Passed = true
	case action == "skip":
		r.Skipped = true
	case action == "fail":
		r.InSpec = true
		r.Message = cmp.Or(r.Message, "failed")
	}
}

// CompilerCause says, from a failed build's output, why file does not build: its first undefined
// name, else any, else its first error, else the first.
func CompilerCause(output, file string) string {
	var lines []string // the errors, without the lines naming a package
	for line := range strings.SplitSeq(output, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	inFile := func(l string) bool {
		name, _, _ := strings.Cut(l, ":")
		name = filepath.ToSlash(strings.TrimPrefix(name, "./"))
		return name == filepath.ToSlash(file) || strings.HasSuffix(name, "/"+filepath.ToSlash(file))
	}
	undefined := func(l string) bool { return strings.Contains(l, ": undefined: ") }
	for _, choose := range []func(string) bool{
		func(l string) bool { return inFile(l) && undefined(l) }, undefined, inFile, func(string) bool { return true },
	} {
		if i := slices.IndexFunc(lines, choose); i >= 0 {
			return lines[i]
		}
	}
	return "does not build"
}

// Gist is a failure message on one line of at most 200 characters: Gomega's words, without their frame or dump.
func Gist(message string) string {
	var words []string
	for line := range strings.SplitSeq(message, "\n") {
		if line = strings.TrimSpace(line); line == "" || frame.MatchString(line) {
			continue
		} else if strings.HasPrefix(line, "{") {
			break
		}
		if len(words) == 1 && elapsed.MatchString(words[0]) {
			words[0] = strings.TrimSuffix(words[0], ".") + ":"
		}
		// A line that opens a dump ("<[]v1.Condition | len:1>: [") ends the gist.
		opened := strings.TrimRight(line, "[{ ")
		if words = append(words, opened); opened != line || len(words) == 6 {
			break
		}
	}
	if r := []rune(strings.Join(words, " ")); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return strings.Join(words, " ")
}

var (
	elapsed = regexp.MustCompile(`^(Timed out|Failed) after [0-9.]+m?s\.$`) // opens an Eventually or Consistently failure
	// frame: the lines that only frame what failed (which function, a pointer's type).
	frame = regexp.MustCompile(`^(The function passed to (Eventually|Consistently) (failed at .* with:|returned the following error:)|Expected success, but got an error:|<[^>]*\| 0x[0-9a-f]+>: ?)$`)
)

// Focus is Ginkgo's --focus for exactly the named specs (the suite's description, a space, a name).
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

// Cell is s as one cell of a Markdown table: on one line, its pipes escaped.
func Cell(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "|", `\|`)), " ")
}

// relativeFile is file relative to root; a -trimpath binary's files are under the module path
// that root's go.mod declares instead (no go.mod: the file as it is).
func relativeFile(root, file string) string {
	if !filepath.IsAbs(file) {
		gomod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
		return strings.TrimPrefix(file, modfile.ModulePath(gomod)+"/")
	}
	if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return file
}
