package specreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// GoTest reads the events of `go test -json`: a Suite of one Result per top-level test function
// that ran, and, for a package that did not build, its compiler errors, one a line
// (CompilerCause picks the one that says why).
func GoTest(events []byte) (tests Suite, buildErrors map[string]string, err error) {
	run := goTestRun{byTest: map[string]*Result{}, buildErrors: map[string]string{}}
	dec := json.NewDecoder(bytes.NewReader(events))
	for dec.More() {
		var e testEvent
		if err := dec.Decode(&e); err != nil {
			return Suite{}, nil, fmt.Errorf("read go test -json: %w", err)
		}
		run.add(e)
	}
	for _, name := range run.order {
		tests.Specs = append(tests.Specs, *run.byTest[name])
	}
	return tests, run.buildErrors, nil
}

// testEvent is one event of `go test -json` (cmd/test2json).
type testEvent struct {
	Action, Test, ImportPath, Output, FailedBuild string
}

// goTestRun gathers the events of one `go test -json` run.
type goTestRun struct {
	byTest      map[string]*Result
	order       []string
	buildErrors map[string]string
}

func (run *goTestRun) add(e testEvent) {
	if run.buildFailure(e) || e.Test == "" {
		return
	}
	// A subtest's output tells where its test failed; its verdict is its test's.
	name, subtest, _ := strings.Cut(e.Test, "/")
	r, ok := run.byTest[name]
	if !ok {
		r = &Result{Name: name}
		run.byTest[name] = r
		run.order = append(run.order, name)
	}
	switch {
	case e.Action == "output":
		if m := testLogLine.FindStringSubmatch(strings.TrimRight(e.Output, "\n")); m != nil && r.Location == "" {
			r.Location, r.Message = m[1], strings.TrimSpace(m[2])
		}
	case subtest != "":
	case e.Action == "pass":
		r.Passed = true
	case e.Action == "skip":
		r.Skipped = true
	case e.Action == "fail":
		r.InSpec = true
		if r.Message == "" {
			r.Message = "failed"
		}
	}
}

// buildFailure records the compiler errors of a package that did not build, and says whether e
// was about the build.
func (run *goTestRun) buildFailure(e testEvent) bool {
	switch {
	case e.Action == "build-output":
		if line := compilerLine(e.Output); line != "" {
			run.buildErrors[e.ImportPath] = strings.TrimPrefix(run.buildErrors[e.ImportPath]+"\n"+line, "\n")
		}
		return true
	case e.FailedBuild != "" && run.buildErrors[e.FailedBuild] == "":
		// FailedBuild names the build as its build-output events do.
		run.buildErrors[e.FailedBuild] = "does not build"
	}
	return false
}

// testLogLine is a line that t.Error or t.Fatal printed: "    file_test.go:42: message".
var testLogLine = regexp.MustCompile(`^\s+(\S+_test\.go:\d+): (.*)$`)
