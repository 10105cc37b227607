package trial

import (
	"errors"
	"strings"
	"testing"

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
		v, err := judge(tt.report, exit, tt.out, tt.outside, "the binary")
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s: %v, want an error", name, v)
		case tt.want != "" && (err != nil || !v.Failed || v.Test != tt.want):
			t.Errorf("%s: %v, %v; want a kill by %q", name, v, err, tt.want)
		}
	}
	if v, _ := judge(specreport.Suite{}, exit, panicked, Notices, "the binary"); !strings.Contains(v.Where, "assignment to entry in nil map") {
		t.Errorf("a panic is told as %q, without its message", v.Where)
	}
}
