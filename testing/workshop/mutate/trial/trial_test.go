package trial

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"example.com/operator-demo/testing/workshop/specreport"
)

// TestWhatFailedOutsideEverySpecIsTheCallersCall: a spec that failed in its body kills the break
// under either policy; a failed suite setup, or a binary that panicked before any test, kills it
// only for whoever asks whether anything noticed, and proves nothing to whoever asks whether a
// scenario caught it.
func TestWhatFailedOutsideEverySpecIsTheCallersCall(t *testing.T) {
	exit := errors.New("exit status 1")
	inSpec := specreport.Suite{Specs: []specreport.Result{{Name: "Sample creates", InSpec: true, Message: "boom"}}}
	setup := specreport.Suite{Setup: &specreport.Result{Name: "SynchronizedBeforeSuite", Message: "no control plane"}}
	panicked := []byte("panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\n")
	for name, tt := range map[string]struct {
		report  specreport.Suite
		out     []byte
		outside Outside
		want    string // the test that failed; "" for an error
	}{
		"a spec, asking whether a scenario caught it":       {inSpec, nil, ProvesNothing, "Sample creates"},
		"a spec, asking whether anything noticed":           {inSpec, nil, Notices, "Sample creates"},
		"the setup, asking whether a scenario caught it":    {setup, nil, ProvesNothing, ""},
		"the setup, asking whether anything noticed":        {setup, nil, Notices, "SynchronizedBeforeSuite"},
		"a panic, asking whether a scenario caught it":      {specreport.Suite{}, panicked, ProvesNothing, ""},
		"a panic, asking whether anything noticed":          {specreport.Suite{}, panicked, Notices, "the binary"},
		"nothing in the report, and no panic in the output": {specreport.Suite{}, []byte("exit 1"), Notices, ""},
	} {
		v, err := judge(tt.report, exit, nil, tt.out, tt.outside, "the binary")
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s: %v, want an error", name, v)
		case tt.want != "" && (err != nil || !v.Failed || v.Test != tt.want):
			t.Errorf("%s: %v, %v; want a kill by %q", name, v, err, tt.want)
		}
	}
	if v, _ := judge(specreport.Suite{}, exit, nil, panicked, Notices, "the binary"); !strings.Contains(v.Where, "assignment to entry in nil map") {
		t.Errorf("a panic is told as %q, without its message", v.Where)
	}
}

// toy holds the toy tests and specs that the workshop's tests run.
var toy = filepath.Join("..", "..", "testdata", "toy")

// TestAHangIsAKillByTimeout: a unit test or a spec that a break makes hang is ended at the run's
// timeout, and the break counts as noticed, by that test, as a timeout.
func TestAHangIsAKillByTimeout(t *testing.T) {
	dir, hang := t.TempDir(), []string{"TOY_HANG=1"}
	if out, err := Build(toy, dir, nil, "./unit", "./scenarios"); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	const timeout = 2 * time.Second
	for name, run := range map[string]func() (Verdict, error){
		"TestHangs":    func() (Verdict, error) { return Unit(toy, dir, "./unit", hang, nil, Notices, timeout) },
		"A spec hangs": func() (Verdict, error) { return Scenarios(toy, dir, "hang", hang, Notices, timeout) },
	} {
		start := time.Now()
		v, err := run()
		if err != nil || !v.Failed || !v.TimedOut || v.Test != name {
			t.Errorf("%s hangs: %+v, %v; want a kill by timeout, by it", name, v, err)
		}
		if took := time.Since(start); took > timeout+30*time.Second {
			t.Errorf("%s hangs: the run took %s, with a timeout of %s", name, took, timeout)
		}
	}
}

// TestABuildReplacesFilesWithoutTouchingThem: a build with a file overlaid runs the new content;
// the file itself is as it was.
func TestABuildReplacesFilesWithoutTouchingThem(t *testing.T) {
	dir := t.TempDir()
	file, err := filepath.Abs(filepath.Join(toy, "unit", "unit_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(before), "TestFinishes(t *testing.T) {}", `TestFinishes(t *testing.T) { t.Fatal("overlaid") }`, 1)
	if out, err := Build(toy, dir, map[string]string{file: broken}, "./unit"); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if v, err := Unit(toy, dir, "./unit", nil, nil, Notices, 30*time.Second); err != nil || v.Test != "TestFinishes" || !strings.Contains(v.Where, "overlaid") {
		t.Errorf("the overlaid tests: %v, %v; want TestFinishes to fail as overlaid", v, err)
	}
	if after, err := os.ReadFile(file); err != nil || string(after) != string(before) {
		t.Errorf("the overlaid file changed on disk (%v):\n%s", err, after)
	}
}

// TestAVerdictCountsWhatRan: a run says how many tests or specs ran (not those a filter left out,
// nor a pending one), so that a filter that matches nothing is told from a pass; a run whose
// report cannot be read says nothing of what ran, and is an error.
func TestAVerdictCountsWhatRan(t *testing.T) {
	dir := t.TempDir()
	if out, err := Build(toy, dir, nil, "./unit", "./scenarios"); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	scenarios := func(flags ...string) (Verdict, error) {
		return Scenarios(toy, dir, "run", nil, ProvesNothing, time.Minute, flags...)
	}
	unit := func(tests ...string) (Verdict, error) {
		return Unit(toy, dir, "./unit", nil, tests, ProvesNothing, time.Minute)
	}
	for _, tt := range []struct {
		name string
		run  func() (Verdict, error)
		want int
	}{
		{"every spec but the pending one", func() (Verdict, error) { return scenarios() }, 3},
		{"a label no spec carries", func() (Verdict, error) { return scenarios("-ginkgo.label-filter=no-such-label") }, 0},
		{"every unit test, and the example", func() (Verdict, error) { return unit() }, 3},
		{"a test the package lacks", func() (Verdict, error) { return unit("TestNone") }, 0},
	} {
		if v, err := tt.run(); err != nil || v.Failed || v.Ran != tt.want {
			t.Errorf("%s: %d run (%v), %v; want %d run, passed", tt.name, v.Ran, v, err, tt.want)
		}
	}
	if v, err := judge(specreport.Suite{}, nil, errors.New("no report"), nil, ProvesNothing, "the binary"); err == nil {
		t.Errorf("a passing run without a report: %+v, want an error", v)
	}
}
