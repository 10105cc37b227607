package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
)

// TestAnEventuallyWithTheSpecsContextStillTimesOut: given the spec's context, which has no
// deadline of its own, a failing Eventually fails after the default timeout instead of waiting
// for the suite's.
func TestAnEventuallyWithTheSpecsContextStillTimesOut(t *testing.T) {
	RegisterTestingT(t)
	SetDefaults()
	t.Cleanup(func() { SetDefaultEventuallyTimeout(Converge) })
	SetDefaultEventuallyTimeout(200 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	started := time.Now()
	failure := InterceptGomegaFailure(func() {
		Eventually(ctx, func() error { return errors.New("never") }).Should(Succeed())
	})
	if failure == nil {
		t.Fatal("an Eventually that never succeeds did not fail")
	}
	if took := time.Since(started); took > 2*time.Second {
		t.Errorf("it failed after %s: the default timeout does not apply with a context", took)
	}
}

// TestSetDefaultsMakesTheSuitesWaits: after SetDefaults an Eventually waits past Gomega's own
// second, up to Converge, and a Consistently watches for AtRest, both looking every Poll.
func TestSetDefaultsMakesTheSuitesWaits(t *testing.T) {
	RegisterTestingT(t)
	SetDefaultEventuallyTimeout(time.Second) // Gomega's own, whatever a test before set
	SetDefaults()
	started, polls := time.Now(), 0
	Eventually(func() bool {
		polls++
		return time.Since(started) > 1200*time.Millisecond
	}).Should(BeTrue())
	if most := int(1200*time.Millisecond/Poll) + 3; polls > most {
		t.Errorf("Eventually looked %d times in 1.2 s, want at most %d: every Poll (%s)", polls, most, Poll)
	}
	started, polls = time.Now(), 0
	Consistently(func() int {
		polls++
		return 0
	}).Should(BeZero())
	if took, most := time.Since(started), int(AtRest/Poll)+2; took < AtRest || polls > most {
		t.Errorf("Consistently watched for %s, looking %d times: want AtRest (%s), every Poll (%s)", took, polls, AtRest, Poll)
	}
}

// TestSetDefaultsWritesTheLogToTheSpecsOutput: controller-runtime's log, down to its debug lines,
// goes to GinkgoWriter, which a failed spec shows.
func TestSetDefaultsWritesTheLogToTheSpecsOutput(t *testing.T) {
	SetDefaults()
	var out strings.Builder
	GinkgoWriter.TeeTo(&out)
	t.Cleanup(GinkgoWriter.ClearTeeWriters)
	ctrl.Log.WithName("widget").V(1).Info("reconciled")
	if !strings.Contains(out.String(), "DEBUG\twidget\treconciled") {
		t.Errorf("the log wrote %q to GinkgoWriter, want the debug line", out.String())
	}
}
