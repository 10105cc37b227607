package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"

	"example.com/operator-demo/testing/operator"
)

// fakeOperator is an operator that reports the reconciles of reconciles, by result, and no writes.
func fakeOperator(reconciles *prometheus.CounterVec) *operator.Operator {
	registry := prometheus.NewRegistry()
	registry.MustRegister(reconciles)
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
	if took < Settle+time.Second || strings.Contains(message, "settled") {
		t.Errorf("failed after %s, with %q: want the timeout, %s", took, message, Settle+time.Second)
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
