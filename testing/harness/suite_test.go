package harness

import (
	"context"
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
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
