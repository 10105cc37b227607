package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"

	"example.com/operator-demo/testing/harness/operator"
)

// fakeOperator is an operator that reports the reconciles of reconciles, by result, and others
// of controller-runtime's metrics, and no writes.
func fakeOperator(reconciles *prometheus.CounterVec, others ...prometheus.Collector) *operator.Operator {
	registry := prometheus.NewRegistry()
	registry.MustRegister(append(others, reconciles)...)
	return operator.New(operator.Subject{}, operator.Controls{
		Metrics: registry.Gather,
		Writes:  func() (map[string]float64, error) { return map[string]float64{}, nil },
		Running: true,
	})
}

func reconcileTotal() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total"}, []string{"controller", "result"})
	c.WithLabelValues("widget", "success").Add(3)
	return c
}

// failureOf runs wait and returns its failure message and how long it took to fail.
func failureOf(t *testing.T, wait func()) (string, time.Duration) {
	t.Helper()
	started := time.Now()
	failures := InterceptGomegaFailures(wait)
	if len(failures) != 1 {
		t.Fatalf("got %d failures, want 1: %q", len(failures), failures)
	}
	return failures[0], time.Since(started)
}

// TestEventuallyFailsOnceTheOperatorHasSettled: a wait for what a settled operator never did
// fails after Settle, saying so, instead of waiting out its timeout.
func TestEventuallyFailsOnceTheOperatorHasSettled(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperator(reconcileTotal())}
	message, took := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	if took > Settle+2*time.Second {
		t.Errorf("failed after %s, want about Settle (%s)", took, Settle)
	}
	for _, want := range []string{"the operator settled without it", "after 3 reconciles and 0 writes", `Expected
    <string>: old
to equal
    <string>: new`} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure does not say %q:\n%s", want, message)
		}
	}
}

// TestEventuallyWaitsOutItsTimeoutWhileARetryMayCome: an operator whose reconcile ended in an
// error has a retry scheduled that no count shows: the wait does not take it as settled.
func TestEventuallyWaitsOutItsTimeoutWhileARetryMayCome(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	reconciles.WithLabelValues("widget", "error").Inc()
	f := &Fixture{Operator: fakeOperator(reconciles)}
	message, took := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(Settle + time.Second).Should(Equal("new"))
	})
	if took < Settle+time.Second || strings.Contains(message, "settled without it") {
		t.Errorf("failed after %s, with %q: want the timeout, %s", took, message, Settle+time.Second)
	}
	if !strings.Contains(message, "the operator was not taken as settled: 1 of its reconciles ended in an error, a retry pending") {
		t.Errorf("the failure does not say why the operator was not taken as settled:\n%s", message)
	}
}

// TestEventuallyTakesARequeueAsEnded: a reconcile that asked to be requeued (after a while, or
// by the rate limiter) ended; and a terminal error is not retried. An operator that did nothing
// since is settled: the wait fails after Settle, not after its timeout.
func TestEventuallyTakesARequeueAsEnded(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	reconciles.WithLabelValues("widget", "requeue_after").Add(2)
	reconciles.WithLabelValues("widget", "requeue").Inc()
	reconciles.WithLabelValues("widget", "error").Inc()
	terminal := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_terminal_reconcile_errors_total"}, []string{"controller"})
	terminal.WithLabelValues("widget").Inc()
	f := &Fixture{Operator: fakeOperator(reconciles, terminal)}
	message, took := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	if took > Settle+2*time.Second || !strings.Contains(message, "the operator settled without it") {
		t.Errorf("failed after %s, with %q: want it settled after about Settle (%s)", took, message, Settle)
	}
}

// TestEventuallyNamesAnOperatorThatNeverSettles: an operator that keeps reconciling (a loop) is
// never settled, and the wait's failure says so, with its reconciles by controller.
func TestEventuallyNamesAnOperatorThatNeverSettles(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	f := &Fixture{Operator: fakeOperator(reconciles)}
	message, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string {
			reconciles.WithLabelValues("widget", "success").Inc()
			return "old"
		}).WithTimeout(Settle).Should(Equal("new"))
	})
	for _, want := range []string{"the operator never settled", "reconciles during the wait (widget: ", "a reconcile loop"} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure does not say %q:\n%s", want, message)
		}
	}
}

// TestEventuallyKeepsWaitingWhileTheOperatorWorks: counts that move are an operator at work.
func TestEventuallyKeepsWaitingWhileTheOperatorWorks(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	f := &Fixture{Operator: fakeOperator(reconciles)}
	polls := 0
	f.Eventually(context.Background(), func() int {
		polls++
		reconciles.WithLabelValues("widget", "success").Inc()
		return polls
	}).WithTimeout(time.Minute).Should(BeNumerically(">", (Settle+time.Second)/Poll))
}
