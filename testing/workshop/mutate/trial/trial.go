// Package trial runs the operator's tests against a break, built in with `go test -overlay` so
// that the tree is never touched, and says what they said: the first test or spec that failed,
// and where. make mutate (testing/workshop/mutate) and make mutate-sweep
// (testing/workshop/mutatesweep) judge their breaks through it.
package trial

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"example.com/operator-demo/testing/workshop/specreport"
)

// Workers is how many breaks are tried at once. A killed break mostly waits out a scenario's
// Eventually timeout, so two at a time roughly halve a run on two cores.
const Workers = 2

// Outside says what a failure outside every test and spec makes of a run: a failed suite setup,
// a test binary that panics before any test.
type Outside bool

const (
	// ProvesNothing makes the run an error: make mutate asks whether a scenario caught its break.
	ProvesNothing Outside = false
	// Notices makes the break killed: make mutate-sweep asks whether any test noticed it.
	Notices Outside = true
)

// Verdict is what one run of tests said about a break.
type Verdict struct {
	Failed bool
	// Test is the first spec or test that failed, and Where says where: its step and the line of
	// the failed assertion.
	Test, Where string
}

func (v Verdict) String() string {
	if v.Failed {
		return fmt.Sprintf("failed: %s, at %s", v.Test, v.Where)
	}
	return "**passed**"
}

// GoTest runs go test -count=1 with args in root, with the overlay file unless it is "", and
// returns its combined output.
func GoTest(root, overlay string, args ...string) ([]byte, error) {
	flags := []string{"test", "-count=1"}
	if overlay != "" {
		flags = append(flags, "-overlay="+overlay)
	}
	cmd := exec.Command("go", append(flags, args...)...)
	cmd.Dir = root
	return cmd.CombinedOutput()
}

// UnitTests runs go test -json with args (flags and packages) in root, with the overlay unless it
// is "", and reads its events for the first test that failed.
func UnitTests(root, overlay string, outside Outside, args ...string) (Verdict, error) {
	out, err := GoTest(root, overlay, append([]string{"-json"}, args...)...)
	if err == nil {
		return Verdict{}, nil
	}
	tests, buildErrors, readErr := specreport.GoTest(out)
	if readErr != nil {
		return Verdict{}, errors.Join(err, readErr)
	}
	for _, why := range buildErrors {
		return Verdict{}, fmt.Errorf("the unit tests do not build: %s", why)
	}
	return judge(tests, err, out, outside, "the unit test binary")
}

// Scenarios reads what a run of the scenarios said: its error and output, and the JSON report it
// wrote at report, of a run in the tree at root.
func Scenarios(runErr error, out []byte, report, root string, outside Outside) (Verdict, error) {
	if runErr == nil {
		return Verdict{}, nil
	}
	suite, err := specreport.Ginkgo(report, root)
	if err != nil {
		runErr = fmt.Errorf("%w, and no Ginkgo report (%w)", runErr, err)
	}
	return judge(suite, runErr, out, outside, "the scenario binary")
}

// judge is the verdict on a run that failed (runErr, with its output out) as its report says.
func judge(report specreport.Suite, runErr error, out []byte, outside Outside, binary string) (Verdict, error) {
	f, found := report.FirstFailure()
	switch {
	case found && (f.InSpec || outside == Notices):
		return Verdict{Failed: true, Test: f.Name, Where: f.Where()}, nil
	case found:
		return Verdict{}, fmt.Errorf("%s failed outside any spec, which proves nothing: %s", f.Name, f.Where())
	}
	if _, message, panicked := strings.Cut(string(out), "panic:"); panicked && outside == Notices {
		return Verdict{Failed: true, Test: binary, Where: "panics before any test: " + specreport.Gist("panic:"+message)}, nil
	}
	return Verdict{}, fmt.Errorf("%w, with no failed test in the report:\n%s", runErr, out)
}
