package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"example.com/operator-demo/testing/harness/operator"
)

// fakeOperator is an operator that reports the reconciles of reconciles, by result, and others
// of controller-runtime's metrics, and no writes.
func fakeOperator(reconciles *prometheus.CounterVec, others ...prometheus.Collector) *operator.Operator {
	return fakeOperatorOf(nil, reconciles, others...)
}

// fakeOperatorOf is fakeOperator, reconciling kind.
func fakeOperatorOf(kind client.Object, reconciles *prometheus.CounterVec, others ...prometheus.Collector) *operator.Operator {
	registry := prometheus.NewRegistry()
	registry.MustRegister(append(others, reconciles)...)
	return operator.New(operator.Subject{Kind: kind, Scheme: clientgoscheme.Scheme}, operator.Controls{
		Metrics: registry.Gather,
		Writes:  func() (map[string]float64, error) { return map[string]float64{}, nil },
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

// TestEventuallyWaitsOutItsTimeoutWhileARetryMayCome: an operator whose reconciles failed so often
// that the rate limiter's backoff may put a retry further off than Settle has a retry scheduled
// that no count shows yet: the wait does not take it as settled.
func TestEventuallyWaitsOutItsTimeoutWhileARetryMayCome(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	reconciles.WithLabelValues("widget", "error").Add(10)
	f := &Fixture{Operator: fakeOperator(reconciles)}
	message, took := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(Settle + time.Second).Should(Equal("new"))
	})
	if took < Settle+time.Second || strings.Contains(message, "settled without it") {
		t.Errorf("failed after %s, with %q: want the timeout, %s", took, message, Settle+time.Second)
	}
	if !strings.Contains(message, "the operator was not taken as settled: 10 of its reconciles ended in an error, a retry may still be due") {
		t.Errorf("the failure does not say why the operator was not taken as settled:\n%s", message)
	}
}

// TestEventuallyTakesAFewFailuresAsRetried: the retry of a reconcile that failed a few times
// (a Conflict on a status write, say) came within Settle of the failure, and ended as it did:
// an operator that did nothing since is settled, and the wait fails after Settle.
func TestEventuallyTakesAFewFailuresAsRetried(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	reconciles.WithLabelValues("widget", "error").Add(2)
	f := &Fixture{Operator: fakeOperator(reconciles)}
	message, took := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	if took > Settle+2*time.Second || !strings.Contains(message, "the operator settled without it") {
		t.Errorf("failed after %s, with %q: want it settled after about Settle (%s)", took, message, Settle)
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

// reconciling is a Fixture whose operator reconciles ConfigMaps, n of them in its namespace, and
// reports the reconciles of reconciles; one ConfigMap of another namespace is not its spec's.
func reconciling(reconciles *prometheus.CounterVec, n int) *Fixture {
	objects := make([]client.Object, 0, 1+n)
	objects = append(objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "spec-b", Name: "elsewhere"}})
	for i := range n {
		objects = append(objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "spec-a", Name: fmt.Sprint(i)}})
	}
	return &Fixture{Operator: fakeOperatorOf(&corev1.ConfigMap{}, reconciles), Namespace: "spec-a", Client: fake.NewClientBuilder().WithObjects(objects...).Build()}
}

// TestEventuallyNamesAnOperatorThatNeverSettles: an operator that keeps reconciling, more slowly
// than a loop (once a poll, 10 ms in a unit test, for 100 objects), is never settled, and the
// wait's failure says so, with its reconciles by controller.
func TestEventuallyNamesAnOperatorThatNeverSettles(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	f := reconciling(reconciles, 100)
	message, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string {
			reconciles.WithLabelValues("widget", "success").Inc()
			return "old"
		}).WithTimeout(Settle).Should(Equal("new"))
	})
	for _, want := range []string{"the operator never settled", "reconciles during the wait (widget: ", "requeues sooner than that"} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure does not say %q:\n%s", want, message)
		}
	}
}

// TestEventuallyFailsAtOnceOnALoop: an operator that reconciles its one object many times a
// second during a wait (a requeue at once, a write that triggers itself) is in a loop: the wait
// fails within a second or so, naming the loop and its reconciles, not after its timeout.
func TestEventuallyFailsAtOnceOnALoop(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	f := &Fixture{Operator: fakeOperatorOf(&corev1.ConfigMap{}, reconciles), Namespace: "spec-a", Client: fake.NewClientBuilder().WithObjects(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "spec-a", Name: "one"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "spec-b", Name: "elsewhere"}},
	).Build()}
	message, took := failureOf(t, func() {
		f.Eventually(context.Background(), func() string {
			reconciles.WithLabelValues("widget", "success").Add(10)
			return "old"
		}).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	if took > Settle {
		t.Errorf("failed after %s, want within Settle (%s)", took, Settle)
	}
	for _, want := range []string{"the operator is in a reconcile loop: ", " reconciles during the wait (widget: ", ") for 1 ConfigMap in spec-a"} {
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
