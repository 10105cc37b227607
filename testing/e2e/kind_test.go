package e2e

import (
	"context"
	"strings"
	"testing"
)

// TestRunSaysWhatTheCommandPrintedOnStderr: Run hands the command its input and returns what it
// printed; a command that fails is an error with its stderr.
func TestRunSaysWhatTheCommandPrintedOnStderr(t *testing.T) {
	out, err := Run(context.Background(), []byte("in"), "sh", "-c", "cat; echo out")
	if string(out) != "inout\n" || err != nil {
		t.Errorf("Run = %q, %v; want the input and out", out, err)
	}
	_, err = Run(context.Background(), nil, "sh", "-c", "echo why >&2; exit 3")
	if err == nil || !strings.Contains(err.Error(), "exit status 3: why") {
		t.Errorf("a command that fails: Run = %v, want its exit status and stderr", err)
	}
}
