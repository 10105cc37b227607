package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	gomegatypes "github.com/onsi/gomega/types"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/testing/harness/operator"
)

// fakeOperator is an operator that reports the reconciles of reconciles, by result, and others
// of controller-runtime's metrics, and no writes.
func fakeOperator(reconciles *prometheus.CounterVec, others ...prometheus.Collector) *operator.Operator {
	return fakeOperatorOf(nil, reconciles, others...)
}

// fakeOperatorOf is fakeOperator, reconciling kind.
func fakeOperatorOf(kind client.Object, reconciles *prometheus.CounterVec, others ...prometheus.Collector) *operator.Operator {
	return fakeOperatorWith(kind, gather(append(others, reconciles)...), map[string]float64{})
}

// gather is the Gather of a registry of collectors, what an operator's metrics read.
func gather(collectors ...prometheus.Collector) func() ([]*dto.MetricFamily, error) {
	registry := prometheus.NewRegistry()
	registry.MustRegister(collectors...)
	return registry.Gather
}

// fakeOperatorWith is an operator reconciling kind whose metrics are gathered by metrics, which
// has sent writes.
func fakeOperatorWith(kind client.Object, metrics func() ([]*dto.MetricFamily, error), writes map[string]float64) *operator.Operator {
	return operator.New(operator.Subject{Kind: kind, Scheme: clientgoscheme.Scheme}, operator.Controls{
		Metrics: metrics,
		Writes:  func() (map[string]float64, error) { return writes, nil },
	})
}

// unread is the metrics of an operator that cannot be read: a process not up, or gone.
func unread() ([]*dto.MetricFamily, error) { return nil, errors.New("connection refused") }

func reconcileTotal() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total"}, []string{"controller", "result"})
	c.WithLabelValues("configmap", "success").Add(3)
	return c
}

// failureOf runs wait and returns its failure message, how long it took to fail and the code
// location the failure names, as Ginkgo's Fail finds it (GinkgoHelper's callers, say).
func failureOf(t *testing.T, wait func()) (string, time.Duration, types.CodeLocation) {
	t.Helper()
	var failures []string
	var where types.CodeLocation
	RegisterFailHandler(func(message string, callerSkip ...int) {
		failures = append(failures, message)
		where = types.NewCodeLocation(callerSkip[0] + 1)
	})
	defer RegisterTestingT(t)
	started := time.Now()
	wait()
	took := time.Since(started)
	if len(failures) != 1 {
		t.Fatalf("got %d failures, want 1: %q", len(failures), failures)
	}
	return failures[0], took, where
}

// settledAfter matches the failure of a wait that took the operator as settled, after about
// Settle of quiet, rounded to a tenth of a second: Gomega's, its context cancelled with that cause.
// On a loaded machine a poll comes late: up to 2.x s.
var settledAfter = regexp.MustCompile(`^Context was cancelled \(cause: the operator settled without it: no reconcile and no API write for (1\.\d|2(\.\d)?)s, after`)

// expectSettled fails t unless the wait that failed with message after took took the operator as
// settled: no sooner than Settle, and not much later.
func expectSettled(t *testing.T, message string, took time.Duration) {
	t.Helper()
	if took < Settle || took > Settle+2*time.Second || !settledAfter.MatchString(message) {
		t.Errorf("failed after %s, with %q: want it settled after about Settle (%s)", took, message, Settle)
	}
}

// expectHere fails t unless where is in its caller's file: a failure names the spec's line, not
// the harness's.
func expectHere(t *testing.T, where types.CodeLocation) {
	t.Helper()
	if _, this, _, _ := runtime.Caller(1); where.FileName != this {
		t.Errorf("the failure names %s, want a line of %s", where, this)
	}
}

// TestEventuallyFailsOnceTheOperatorHasSettled: a wait for what a settled operator never did
// fails after Settle, saying so, instead of waiting out its timeout.
func TestEventuallyFailsOnceTheOperatorHasSettled(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperator(reconcileTotal())}
	message, took, where := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	expectSettled(t, message, took)
	expectHere(t, where)
	for _, want := range []string{"after 3 reconciles and 0 writes, 0 reconciles during the wait (nothing) and 0 writes (nothing)) after ", `Expected
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
	reconciles.WithLabelValues("configmap", "error").Add(10)
	f := &Fixture{Operator: fakeOperator(reconciles)}
	ctx, cancel := context.WithTimeout(context.Background(), 4*Settle) // past the wait's own timeout
	defer cancel()
	message, took, _ := failureOf(t, func() {
		f.Eventually(ctx, func() string { return "old" }).WithTimeout(Settle+time.Second).Should(Equal("new"), func() string { return "the new value" })
	})
	if took < Settle+time.Second || took > Settle+3*time.Second || !strings.HasPrefix(message, "Timed out after ") {
		t.Errorf("failed after %s, with %q: want the timeout, %s", took, message, Settle+time.Second)
	}
	if !strings.Contains(message, "s.\nthe new value\nthe operator was not taken as settled: 10 of its reconciles ended in an error, a retry may still be due\nExpected") {
		t.Errorf("the failure does not give the description, then why the operator was not taken as settled:\n%s", message)
	}
}

// TestEventuallyTakesAFewFailuresAsRetried: the retry of a reconcile that failed a few times
// (a Conflict on a status write, say) came within Settle of the failure, and ended as it did:
// an operator that did nothing since is settled, and the wait fails after Settle.
func TestEventuallyTakesAFewFailuresAsRetried(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	reconciles.WithLabelValues("configmap", "error").Add(2)
	f := &Fixture{Operator: fakeOperator(reconciles)}
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	expectSettled(t, message, took)
}

// TestEventuallyTakesARequeueAsEnded: a reconcile that asked to be requeued (after a while, or
// by the rate limiter) ended; and a terminal error is not retried. An operator that did nothing
// since is settled: the wait fails after Settle, not after its timeout.
func TestEventuallyTakesARequeueAsEnded(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	reconciles.WithLabelValues("configmap", "requeue_after").Add(2)
	reconciles.WithLabelValues("configmap", "requeue").Inc()
	reconciles.WithLabelValues("configmap", "error").Inc()
	terminal := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_terminal_reconcile_errors_total"}, []string{"controller"})
	terminal.WithLabelValues("configmap").Inc()
	f := &Fixture{Operator: fakeOperator(reconciles, terminal)}
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	expectSettled(t, message, took)
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
	message, _, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string {
			reconciles.WithLabelValues("configmap", "success").Inc()
			return "old"
		}).WithTimeout(Settle).Should(Equal("new"), "waiting for %s", "new")
	})
	for _, want := range []string{"Timed out after ", "s.\nwaiting for new\nthe operator never settled: ", "reconciles during the wait (configmap: ", "requeues sooner than that\nExpected"} {
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
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string {
			reconciles.WithLabelValues("configmap", "success").Add(10)
			return "old"
		}).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	if took > Settle {
		t.Errorf("failed after %s, want within Settle (%s)", took, Settle)
	}
	for _, want := range []string{"Context was cancelled (cause: the operator is in a reconcile loop: ", " reconciles during the wait (configmap: ", ") for 1 ConfigMap in spec-a", " API writes) after ", "Expected\n    <string>: old"} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure does not say %q:\n%s", want, message)
		}
	}
	if strings.Contains(message, "never settled") {
		t.Errorf("the failure of a loop says the operator never settled:\n%s", message)
	}
}

// TestEventuallyKeepsWaitingWhileTheOperatorWorks: counts that move are an operator at work.
func TestEventuallyKeepsWaitingWhileTheOperatorWorks(t *testing.T) {
	RegisterTestingT(t)
	SetDefaults() // a reconcile every Poll: fewer than a loop
	reconciles := reconcileTotal()
	f := &Fixture{Operator: fakeOperator(reconciles)}
	started := time.Now()
	f.Eventually(context.Background(), func() time.Duration {
		reconciles.WithLabelValues("configmap", "success").Inc()
		return time.Since(started)
	}).WithTimeout(time.Minute).Should(BeNumerically(">", Settle+time.Second))
}

// TestEventuallyCountsFromTheStartOfTheWait: reconciles done before the wait are not a loop
// during it, and one done as it first polls is one during it; an operator quiet for less than
// Settle when the wait times out is not said to have never settled.
func TestEventuallyCountsFromTheStartOfTheWait(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	reconciles.WithLabelValues("configmap", "success").Add(10 * Loop)
	f := &Fixture{Operator: fakeOperator(reconciles)}
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	expectSettled(t, message, took)
	polls := 0
	message, took, _ = failureOf(t, func() {
		f.Eventually(context.Background(), func() string {
			if polls++; polls == 1 {
				reconciles.WithLabelValues("configmap", "success").Inc()
			}
			return "old"
		}).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	expectSettled(t, message, took)
	if !strings.Contains(message, ", 1 reconciles during the wait (configmap: 1)") {
		t.Errorf("the failure does not count the reconcile of the wait's first poll:\n%s", message)
	}
	message, _, _ = failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(Settle / 3).Should(Equal("new"))
	})
	if strings.Contains(message, "the operator") {
		t.Errorf("a wait that timed out before Settle on a quiet operator says:\n%s", message)
	}
}

// TestEventuallyNamesALoopItCannotCount: an operator in a loop whose objects the wait does not
// list (a fixture with no client) is named in a loop over 0 objects; one whose objects it cannot
// list is not taken for a loop: it never settled, the failure says next to Gomega's first line.
func TestEventuallyNamesALoopItCannotCount(t *testing.T) {
	RegisterTestingT(t)
	looping := func(f *Fixture, reconciles *prometheus.CounterVec) string {
		message, _, _ := failureOf(t, func() {
			f.Eventually(context.Background(), func() string {
				reconciles.WithLabelValues("configmap", "success").Add(10)
				return "old"
			}).WithTimeout(Settle).Should(Equal("new"))
		})
		return message
	}
	reconciles := reconcileTotal()
	if message := looping(&Fixture{Operator: fakeOperatorOf(&corev1.ConfigMap{}, reconciles)}, reconciles); !strings.Contains(message, ") for 0 objects, and 0 API writes") {
		t.Errorf("the failure does not name a loop over 0 objects:\n%s", message)
	}
	reconciles = reconcileTotal()
	unlisted := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
		return errors.New("forbidden")
	}}).Build()
	if message := looping(&Fixture{Operator: fakeOperatorOf(&corev1.ConfigMap{}, reconciles), Namespace: "spec-a", Client: unlisted}, reconciles); !strings.Contains(message, "s.\nthe operator never settled: ") || strings.Contains(message, "loop") {
		t.Errorf("an operator whose objects cannot be listed is named in a loop:\n%s", message)
	}
}

// TestEventuallyReportsTheMatchersError: a matcher that cannot match the value fails the wait once
// the operator has settled, as any other wait, with the matcher's error.
func TestEventuallyReportsTheMatchersError(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperator(reconcileTotal())}
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(3 * Settle).Should(BeNumerically(">", 1))
	})
	expectSettled(t, message, took)
	if !strings.Contains(message, "The matcher passed to Eventually returned the following error:") || !strings.Contains(message, "Expected a number") {
		t.Errorf("the failure does not give the matcher's error:\n%s", message)
	}
}

// TestEventuallyWaitsOutAnOperatorItCannotRead: an operator whose metrics cannot be read (a
// process coming back up) is not taken as settled: the wait runs to its timeout.
func TestEventuallyWaitsOutAnOperatorItCannotRead(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperatorWith(nil, unread, nil)}
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(Settle + time.Second).Should(Equal("new"))
	})
	if took < Settle+time.Second || !timedOutUndescribed.MatchString(message) {
		t.Errorf("failed after %s, with %q: want the timeout, %s", took, message, Settle+time.Second)
	}
}

// TestEventuallySettledWaitsUntilTheReadingStopsMoving: the baseline is the reading once the
// operator has stopped counting up, not one taken while it still works or could not be read.
func TestEventuallySettledWaitsUntilTheReadingStopsMoving(t *testing.T) {
	RegisterTestingT(t)
	SetDefaults()
	reconciles := reconcileTotal()
	gathered := gather(reconciles)
	var started time.Time
	counted, moves, step := 0, 4, 2*Poll // a move every 2 polls: 3 polls apart, every reading differs
	metrics := func() ([]*dto.MetricFamily, error) {
		if started.IsZero() {
			started = time.Now()
			return nil, errors.New("connection refused") // not up yet
		}
		for ; counted < min(moves, int(time.Since(started)/step)); counted++ {
			reconciles.WithLabelValues("configmap", "success").Inc()
		}
		return gathered()
	}
	f := &Fixture{Operator: fakeOperatorWith(nil, metrics, map[string]float64{})}
	if got := f.EventuallySettled(context.Background()); got.Reconciles != float64(3+moves) {
		t.Errorf("EventuallySettled = %v reconciles, want the %d of the settled operator", got.Reconciles, 3+moves)
	}
}

// TestEventuallySettledFailsOnAnOperatorItCannotRead: an operator that never reads fails the wait
// for its baseline at the timeout, naming why, on the spec's line.
func TestEventuallySettledFailsOnAnOperatorItCannotRead(t *testing.T) {
	RegisterTestingT(t)
	SetDefaults()
	t.Cleanup(func() { SetDefaultEventuallyTimeout(Converge) })
	SetDefaultEventuallyTimeout(500 * time.Millisecond)
	f := &Fixture{Operator: fakeOperatorWith(nil, unread, nil)}
	message, _, where := failureOf(t, func() { f.EventuallySettled(context.Background()) })
	if !strings.Contains(message, "connection refused") {
		t.Errorf("the failure does not say why the operator could not be read:\n%s", message)
	}
	expectHere(t, where)
}

// atRest is a Fixture whose operator has sent writes and reconciled, with a ConfigMap "one" in
// its namespace, returned as read.
func atRest(t *testing.T, writes map[string]float64) (*Fixture, *corev1.ConfigMap) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "spec-a", Name: "one"}}
	f := &Fixture{Operator: fakeOperatorWith(&corev1.ConfigMap{}, gather(reconcileTotal()), writes), Namespace: "spec-a", Client: fake.NewClientBuilder().WithObjects(cm).Build()}
	NewWithT(t).Expect(f.Client.Get(context.Background(), client.ObjectKeyFromObject(cm), cm)).To(Succeed())
	return f, cm
}

// TestExpectAtRestPassesWhileNothingMoves: an operator whose reading matches, and objects that
// keep their resourceVersion, are at rest.
func TestExpectAtRestPassesWhileNothingMoves(t *testing.T) {
	RegisterTestingT(t)
	f, cm := atRest(t, map[string]float64{})
	f.ExpectAtRest(context.Background(), HaveField("Writes", BeZero()), cm)
}

// TestExpectAtRestNamesTheWritesOfAnOperatorThatMoved: a reading that does not match fails the
// watch, naming what the operator has written, by resource, on the spec's line.
func TestExpectAtRestNamesTheWritesOfAnOperatorThatMoved(t *testing.T) {
	RegisterTestingT(t)
	f, cm := atRest(t, map[string]float64{"samples/status": 2, "configmaps": 1})
	message, _, where := failureOf(t, func() { f.ExpectAtRest(context.Background(), HaveField("Writes", BeZero()), cm) })
	if !strings.Contains(message, "the operator has written, since it came up: configmaps: 1, samples/status: 2") {
		t.Errorf("the failure does not name the writes:\n%s", message)
	}
	expectHere(t, where)
	f, cm = atRest(t, map[string]float64{})
	message, _, _ = failureOf(t, func() { f.ExpectAtRest(context.Background(), HaveField("Reconciles", BeZero()), cm) })
	if !strings.Contains(message, "the operator has written, since it came up: nothing") {
		t.Errorf("the failure does not say the operator wrote nothing:\n%s", message)
	}
}

// TestExpectAtRestWatchesForAtRest: a write that comes well into the watch, past Gomega's own
// 100 ms, fails it.
func TestExpectAtRestWatchesForAtRest(t *testing.T) {
	RegisterTestingT(t)
	SetDefaults()
	reconciles := reconcileTotal()
	gathered := gather(reconciles)
	var started time.Time
	metrics := func() ([]*dto.MetricFamily, error) {
		if started.IsZero() {
			started = time.Now()
		} else if time.Since(started) > AtRest/2 {
			reconciles.WithLabelValues("configmap", "success").Inc()
		}
		return gathered()
	}
	f := &Fixture{Operator: fakeOperatorWith(nil, metrics, map[string]float64{})}
	failureOf(t, func() { f.ExpectAtRest(context.Background(), HaveField("Reconciles", BeNumerically("==", 3))) })
}

// TestExpectAtRestNamesAnObjectThatMoved: an object whose resourceVersion moved on from the one
// the spec holds fails the watch, named.
func TestExpectAtRestNamesAnObjectThatMoved(t *testing.T) {
	RegisterTestingT(t)
	f, cm := atRest(t, map[string]float64{})
	moved := cm.DeepCopy()
	moved.Data = map[string]string{"written": "by someone"}
	NewWithT(t).Expect(f.Client.Update(context.Background(), moved)).To(Succeed())
	message, _, _ := failureOf(t, func() { f.ExpectAtRest(context.Background(), HaveField("Writes", BeZero()), cm) })
	if !strings.Contains(message, "the resourceVersion of *v1.ConfigMap spec-a/one") {
		t.Errorf("the failure does not name the ConfigMap that moved:\n%s", message)
	}
}

// TestEventuallyEventFindsTheEventAndFailsWithoutIt: an event of the spec's namespace that matches
// ends the wait; with none, the wait fails once the operator has settled, on the spec's line.
func TestEventuallyEventFindsTheEventAndFailsWithoutIt(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperator(reconcileTotal()), Namespace: "spec-a", Client: fake.NewClientBuilder().WithObjects(
		&eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "spec-a", Name: "made"}, Reason: "Made"},
		&eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "spec-b", Name: "elsewhere"}, Reason: "Elsewhere"},
	).Build()}
	f.EventuallyEvent(context.Background(), HaveField("Reason", "Made"))
	message, took, where := failureOf(t, func() { f.EventuallyEvent(context.Background(), HaveField("Reason", "Elsewhere")) })
	expectSettled(t, message, took)
	expectHere(t, where)
}

// TestEventuallyScalesTheLoopWithTheObjects: more than Loop reconciles during a wait are no loop
// where the spec's namespace holds as many objects as that takes: an operator that reconciled
// each of 3 objects 40 times, then stopped, settled.
func TestEventuallyScalesTheLoopWithTheObjects(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	f, during := reconciling(reconciles, 3), 0
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string {
			if during < 3*40 {
				reconciles.WithLabelValues("configmap", "success").Add(10)
				during += 10
			}
			return "old"
		}).WithTimeout(3 * Settle).Should(Equal("new"))
	})
	if strings.Contains(message, "loop") {
		t.Errorf("40 reconciles for each of 3 objects were named a loop:\n%s", message)
	}
	if !strings.Contains(message, "the operator settled without it") || took > 3*Settle {
		t.Errorf("failed after %s with %q, want the operator settled", took, message)
	}
}

// TestEventuallyClaimsNothingOfAnOperatorThatStoppedAnswering: an operator read at the start of
// the wait, which then moved, that cannot be read at its timeout is not said to have never
// settled: nobody can tell.
func TestEventuallyClaimsNothingOfAnOperatorThatStoppedAnswering(t *testing.T) {
	RegisterTestingT(t)
	reconciles, reads := reconcileTotal(), 0
	gathered := gather(reconciles)
	metrics := func() ([]*dto.MetricFamily, error) {
		switch reads++; {
		case reads == 2:
			reconciles.WithLabelValues("configmap", "success").Inc()
		case reads > 2:
			return nil, errors.New("connection refused")
		}
		return gathered()
	}
	f := &Fixture{Operator: fakeOperatorWith(nil, metrics, map[string]float64{})}
	message, _, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(Settle / 3).Should(Equal("new"))
	})
	if !timedOutUndescribed.MatchString(message) {
		t.Errorf("the failure says more than Gomega's of an operator that could not be read, its wait undescribed:\n%s", message)
	}
}

// timedOutUndescribed matches Gomega's failure of a wait that timed out, its description empty:
// a blank line between its first line and what it expected.
var timedOutUndescribed = regexp.MustCompile(`^Timed out after [\d.]+s\.\n\nExpected\n`)

// TestExpectAtRestFailsOnWhatItCannotRead: an operator whose reading fails, or an object gone,
// fails the watch, saying why: neither is at rest as far as anyone can tell.
func TestExpectAtRestFailsOnWhatItCannotRead(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperatorWith(nil, unread, nil)}
	message, _, _ := failureOf(t, func() { f.ExpectAtRest(context.Background(), HaveField("Writes", BeZero())) })
	if !strings.Contains(message, "connection refused") {
		t.Errorf("the failure does not say why the operator could not be read:\n%s", message)
	}
	f, cm := atRest(t, map[string]float64{})
	NewWithT(t).Expect(f.Client.Delete(context.Background(), cm.DeepCopy())).To(Succeed())
	message, _, _ = failureOf(t, func() { f.ExpectAtRest(context.Background(), HaveField("Writes", BeZero()), cm) })
	if !strings.Contains(message, `configmaps "one" not found`) {
		t.Errorf("the failure does not say the ConfigMap is gone:\n%s", message)
	}
}

// TestEventuallyEventSaysWhyItCannotListTheEvents: events that cannot be listed fail the wait
// once the operator has settled, with the reason the list gave.
func TestEventuallyEventSaysWhyItCannotListTheEvents(t *testing.T) {
	RegisterTestingT(t)
	forbidden := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
		return errors.New("events.events.k8s.io is forbidden")
	}}).Build()
	f := &Fixture{Operator: fakeOperator(reconcileTotal()), Namespace: "spec-a", Client: forbidden}
	ctx, cancel := context.WithTimeout(context.Background(), 3*Settle) // a wait with a context has no timeout of its own
	defer cancel()
	message, took, _ := failureOf(t, func() { f.EventuallyEvent(ctx, HaveField("Reason", "Made")) })
	expectSettled(t, message, took)
	if !strings.Contains(message, "is forbidden") {
		t.Errorf("the failure does not say why the events could not be listed:\n%s", message)
	}
}

// TestEventuallyNamesTheObjectThatNeverAppeared: a wait for an object the operator never creates
// (komega.Object, whose Get fails: not found) fails once the operator has settled, with the
// function's error as Gomega gives it, which names the object, and what the operator did; not at
// its timeout.
func TestEventuallyNamesTheObjectThatNeverAppeared(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperator(reconcileTotal()), Namespace: "spec-a", Client: fake.NewClientBuilder().Build()}
	missing := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "spec-a", Name: "web-config"}}
	message, took, where := failureOf(t, func() {
		f.Eventually(context.Background(), komega.New(f.Client).Object(missing)).WithTimeout(4 * Settle).Should(HaveField("Data", HaveKey("message")))
	})
	expectSettled(t, message, took)
	expectHere(t, where)
	for _, want := range []string{"after 3 reconciles and 0 writes", "The function passed to Eventually returned the following error:", `configmaps "web-config" not found`} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure does not say %q:\n%s", want, message)
		}
	}
	// What the operator did during the wait (a reconcile and a write, read on its second reading),
	// by controller and by resource.
	reconciles, writes, reads := reconcileTotal(), map[string]float64{"configmaps": 1}, 0
	gathered := gather(reconciles)
	f.Operator = fakeOperatorWith(nil, func() ([]*dto.MetricFamily, error) {
		if reads++; reads == 2 {
			reconciles.WithLabelValues("configmap", "success").Inc()
			writes["samples/status"]++
		}
		return gathered()
	}, writes)
	message, took, _ = failureOf(t, func() {
		f.Eventually(context.Background(), func() (client.Object, error) {
			return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "spec-a", Name: "gear"}}, errors.New("no Widget yet")
		}).WithTimeout(4 * Settle).Should(Succeed())
	})
	expectSettled(t, message, took)
	for _, want := range []string{"after 4 reconciles and 2 writes, 1 reconciles during the wait (configmap: 1) and 1 writes (samples/status: 1)", "no Widget yet"} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure does not say %q:\n%s", want, message)
		}
	}
}

// TestEventuallyPollsAsGomegaDoes: what it polls is Gomega's to poll: a polled function's
// StopTrying stops the wait at once; a function Gomega cannot poll fails it as Gomega says; a
// value that is no function, and the error a function returns alone, are matched as they are; a
// function that fails, then passes, ends the wait.
func TestEventuallyPollsAsGomegaDoes(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperator(reconcileTotal())}
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() (string, error) { return "", StopTrying("given up") }).WithTimeout(4 * Settle).Should(Equal("made"))
	})
	if took > Settle || !strings.Contains(message, "given up") {
		t.Errorf("failed after %s with %q, want the function's StopTrying at once", took, message)
	}
	for refused, says := range map[string]any{
		"takes 1 arguments": func(int) string { return "" },
		"invalid signature": func() {},
		"unexpected non-nil/non-zero return value at index 1": func() (string, int) { return "made", 1 },
	} {
		message, _, _ := failureOf(t, func() { f.Eventually(context.Background(), says).WithTimeout(Settle / 3).Should(Equal("made")) })
		if !strings.Contains(message, refused) {
			t.Errorf("the failure of a function Gomega cannot poll does not say %q:\n%s", refused, message)
		}
	}
	message, took, _ = failureOf(t, func() { f.Eventually(context.Background(), "old").WithTimeout(4 * Settle).Should(Equal("new")) })
	expectSettled(t, message, took)
	// A function whose one result is an error hands it to the matcher.
	f.Eventually(context.Background(), func() error { return errors.New("refused") }).WithTimeout(Settle).Should(MatchError("refused"))
	polls := 0
	f.Eventually(context.Background(), func(g Gomega) {
		polls++
		g.Expect(polls).To(BeNumerically(">", 2))
	}).WithTimeout(4 * Settle).Should(Succeed())
}

// TestEventuallyFailsOnceTheOperatorHasSettledWhileTheFunctionFails: a polled function that
// fails, by its error or by an assertion of its Gomega, is what the operator has not done yet:
// the wait fails once the operator has settled, saying what failed where; and at once on a loop.
func TestEventuallyFailsOnceTheOperatorHasSettledWhileTheFunctionFails(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperator(reconcileTotal())}
	var line int
	message, took, _ := failureOf(t, func() {
		// With a value to return, never returned once its assertion failed.
		f.Eventually(context.Background(), func(g Gomega, ctx context.Context) string {
			g.Expect(ctx.Err()).NotTo(HaveOccurred())
			_, _, line, _ = runtime.Caller(0)
			g.Expect("not yet").To(Equal("made"))
			g.Expect("never reached").To(BeEmpty())
			return "made"
		}).WithTimeout(4 * Settle).Should(Equal("made"))
	})
	expectSettled(t, message, took)
	if want := fmt.Sprintf("waits_test.go:%d with:", line+1); !strings.Contains(message, want) || !strings.Contains(message, "not yet") || strings.Contains(message, "never reached") {
		t.Errorf("the failure does not say what failed at %s:\n%s", want, message)
	}
	message, took, _ = failureOf(t, func() {
		f.Eventually(context.Background(), func() (string, error) { return "", errors.New("no Widget yet") }).WithTimeout(4 * Settle).Should(Equal("made"))
	})
	expectSettled(t, message, took)
	if !strings.Contains(message, "no Widget yet") {
		t.Errorf("the failure does not give the function's error:\n%s", message)
	}
	reconciles := reconcileTotal()
	f = &Fixture{Operator: fakeOperator(reconciles)}
	message, took, _ = failureOf(t, func() {
		f.Eventually(context.Background(), func() error {
			reconciles.WithLabelValues("configmap", "success").Add(10)
			return errors.New("no Widget yet")
		}).WithTimeout(4 * Settle).Should(Succeed())
	})
	if took > Settle || !strings.Contains(message, "the operator is in a reconcile loop") || !strings.Contains(message, "no Widget yet") {
		t.Errorf("failed after %s with %q, want a loop named within Settle (%s)", took, message, Settle)
	}
}

// TestEventuallyFailsSoonOnASettledOperatorWhileTheFunctionKeepsFailing: a wait whose polled
// function fails on every poll, in any of the ways Gomega polls one, fails once the operator has
// settled, within a few seconds, saying how the function failed. Each wait is bounded by its
// context: a wait that never stops fails the test at its end, and never hangs it.
func TestEventuallyFailsSoonOnASettledOperatorWhileTheFunctionKeepsFailing(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Operator: fakeOperator(reconcileTotal())}
	for _, c := range []struct {
		name    string
		actual  any
		matcher gomegatypes.GomegaMatcher
		want    string
	}{
		{"an error beside its value", func() (string, error) { return "", errors.New("no Widget yet") }, Equal("made"),
			"The function passed to Eventually returned the following error:"},
		{"an error alone", func() error { return errors.New("no Widget yet") }, Succeed(), "Expected success, but got an error:"},
		{"its Gomega, with no value", func(g Gomega) { g.Expect(errors.New("no Widget yet")).NotTo(HaveOccurred()) }, Succeed(),
			"The function passed to Eventually failed at "},
		{"its Gomega, with a value", func(g Gomega) []string {
			g.Expect(errors.New("no Widget yet")).NotTo(HaveOccurred())
			return nil
		}, BeEmpty(), "The function passed to Eventually failed at "},
		{"its Gomega and the context, with an error", func(g Gomega, ctx context.Context) (string, error) {
			g.Expect(ctx.Err()).NotTo(HaveOccurred())
			return "", errors.New("no Widget yet")
		}, Equal("made"), "The function passed to Eventually returned the following error:"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*Settle)
		message, took, _ := failureOf(t, func() { f.Eventually(ctx, c.actual).Should(c.matcher) })
		cancel()
		expectSettled(t, message, took)
		if !strings.Contains(message, c.want) || !strings.Contains(message, "no Widget yet") {
			t.Errorf("%s: the failure does not say %q and the function's failure:\n%s", c.name, c.want, message)
		}
	}
}

// TestEventuallyStopsWatchingWhenTheWaitEnds: once Should has returned, whether the wait matched or
// timed out, the wait reads the operator no more; a read under way when it matched has ended. A
// wait that matched returns at once, not when its context ends.
func TestEventuallyStopsWatchingWhenTheWaitEnds(t *testing.T) {
	RegisterTestingT(t)
	gathered := gather(reconcileTotal())
	var reads atomic.Int32
	var ended atomic.Bool
	reading, release := make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*Settle)
	defer cancel()
	metrics := func() ([]*dto.MetricFamily, error) {
		if reads.Add(1) == 2 { // the first read after the one the wait starts from: held until it matches
			close(reading)
			select {
			case <-release:
			case <-ctx.Done(): // a read that holds up the polls, never released
			}
			ended.Store(true)
		}
		return gathered()
	}
	f := &Fixture{Operator: fakeOperatorWith(nil, metrics, map[string]float64{})}
	started := time.Now()
	f.Eventually(ctx, func() bool {
		select {
		case <-reading:
			close(release)
			return true
		default:
			return false
		}
	}).Should(BeTrue())
	if took := time.Since(started); !ended.Load() || took > Settle {
		t.Errorf("Should returned after %s, the read of the operator under way ended: %t; want it ended, within Settle", took, ended.Load())
	}
	read := reads.Load()
	Consistently(reads.Load).WithTimeout(3*Poll).Should(Equal(read), "reads of the operator once the wait matched")
	failureOf(t, func() {
		f.Eventually(context.Background(), func() bool { return false }).WithTimeout(3 * Poll).Should(BeTrue())
	})
	read = reads.Load()
	Consistently(reads.Load).WithTimeout(3*Poll).Should(Equal(read), "reads of the operator once the wait timed out")
}

// requeuing reports, until the test ends, the reconciles of one object whose every pass asks to
// be requeued at once (Requeue: true), paced as controller-runtime paces them: by its default
// rate limiter, which puts each pass off twice as long as the one before, from 5 ms.
func requeuing(t *testing.T, reconciles *prometheus.CounterVec) {
	t.Helper()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	done := make(chan struct{})
	t.Cleanup(func() {
		queue.ShutDown()
		<-done
	})
	queue.Add("one")
	go func() {
		defer close(done)
		for {
			item, shutdown := queue.Get()
			if shutdown {
				return
			}
			reconciles.WithLabelValues("configmap", "requeue").Inc()
			queue.AddRateLimited(item)
			queue.Done(item)
		}
	}()
}

// TestEventuallyFailsSoonOnARequeueLoop: an operator whose every pass asks to be requeued at once
// is in a loop, however its rate limiter backs off: the wait fails within about a second and a
// half, naming the loop; not as an operator that settled, once the backoff has passed Settle.
func TestEventuallyFailsSoonOnARequeueLoop(t *testing.T) {
	RegisterTestingT(t)
	reconciles := reconcileTotal()
	f := reconciling(reconciles, 1)
	message, took, _ := failureOf(t, func() {
		requeuing(t, reconciles)
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(Converge).Should(Equal("new"))
	})
	if took > 2*Settle || !strings.Contains(message, "the operator is in a reconcile loop") || !strings.Contains(message, "for 1 ConfigMap in spec-a") {
		t.Errorf("failed after %s with %q, want a loop named within %s", took, message, 2*Settle)
	}
}

// writing is an operator reconciling ConfigMaps, one in its namespace, whose every pass writes
// and starts the next (a status written on every pass), a pass every every, until the test ends.
func writing(t *testing.T, every time.Duration) *Fixture {
	t.Helper()
	reconciles := reconcileTotal()
	var mu sync.Mutex
	writes := map[string]float64{}
	ticker, done, stopped := time.NewTicker(every), make(chan struct{}), make(chan struct{})
	t.Cleanup(func() {
		ticker.Stop()
		close(done)
		<-stopped
	})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				mu.Lock()
				writes["configmaps/status"]++
				mu.Unlock()
				reconciles.WithLabelValues("configmap", "success").Inc()
			}
		}
	}()
	f := reconciling(reconciles, 1)
	f.Operator = operator.New(f.Operator.Subject(), operator.Controls{Metrics: gather(reconciles), Writes: func() (map[string]float64, error) {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(writes), nil
	}})
	return f
}

// TestEventuallyFailsSoonOnASlowWriteLoop: an operator whose every pass writes, slowed to a pass
// every 60 ms (a loaded machine, where each pass waits on the API server), is in a loop after a
// few passes that each wrote: the wait fails within Settle, not after Loop passes (3 s).
func TestEventuallyFailsSoonOnASlowWriteLoop(t *testing.T) {
	RegisterTestingT(t)
	f := writing(t, 60*time.Millisecond)
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(Converge).Should(Equal("new"))
	})
	if took > Settle || !strings.Contains(message, "the operator is in a reconcile loop") {
		t.Errorf("failed after %s with %q, want a loop named within %s", took, message, Settle)
	}
}

// step is what an operator does during one poll of a wait: passes that ended in success, that
// asked to be requeued at once, that failed; and writes.
type step struct{ ok, requeue, failed, writes float64 }

// expectSettledAfterSteps fails t unless the wait that failed with message took the operator as
// settled, once its steps were done.
func expectSettledAfterSteps(t *testing.T, message string) {
	t.Helper()
	if !settledAfter.MatchString(message) || strings.Contains(message, "loop") {
		t.Errorf("failed with %q: want the operator settled", message)
	}
}

// stepped waits on an operator reconciling ConfigMaps, objects of them in its namespace, which
// has done steps[i] when it is read for the (i+2)th time (the first read is where the wait
// starts), then nothing. It returns the wait's failure, and how long it took.
func stepped(t *testing.T, objects int, steps ...step) (string, time.Duration) {
	t.Helper()
	reconciles, writes, reads := reconcileTotal(), map[string]float64{}, 0
	gathered := gather(reconciles)
	f := reconciling(reconciles, objects)
	f.Operator = fakeOperatorWith(&corev1.ConfigMap{}, func() ([]*dto.MetricFamily, error) {
		if reads++; reads > 1 && reads <= len(steps)+1 {
			s := steps[reads-2]
			reconciles.WithLabelValues("configmap", "success").Add(s.ok)
			reconciles.WithLabelValues("configmap", "requeue").Add(s.requeue)
			reconciles.WithLabelValues("configmap", "error").Add(s.failed)
			writes["configmaps/status"] += s.writes
		}
		return gathered()
	}, writes)
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(4 * Settle).Should(Equal("new"))
	})
	return message, took
}

// TestEventuallyTakesPassesThatWriteAsConvergingUpToLoopRun: LoopRun passes in a row that each
// wrote, for each of 3 objects, are no loop; nor are passes that each wrote on either side of
// ones that did not, nor LoopRun of them and one that failed: an operator that did them, then
// nothing, settled.
func TestEventuallyTakesPassesThatWriteAsConvergingUpToLoopRun(t *testing.T) {
	RegisterTestingT(t)
	message, _ := stepped(t, 3, slices.Repeat([]step{{ok: 3, writes: 3}}, LoopRun)...)
	expectSettledAfterSteps(t, message)
	wrote := slices.Repeat([]step{{ok: 1, writes: 1}}, LoopRun)
	message, _ = stepped(t, 1, slices.Concat(wrote, []step{{ok: 1}}, []step{{ok: 1}}, wrote)...)
	expectSettledAfterSteps(t, message)
	message, _ = stepped(t, 1, slices.Concat(wrote, []step{{failed: 1}})...)
	expectSettledAfterSteps(t, message)
}

// TestEventuallyNamesTheRunOfPassesThatMakesALoop: one pass more than LoopRun in a row for each
// object, each of which wrote, or asked to be requeued at once, is a loop, named at once; one
// that failed in between does not end the run, nor one whose write was read before it ended.
func TestEventuallyNamesTheRunOfPassesThatMakesALoop(t *testing.T) {
	RegisterTestingT(t)
	for _, c := range []struct {
		name    string
		objects int
		steps   []step
		want    string
	}{
		{"wrote", 3, slices.Repeat([]step{{ok: 3, writes: 3}}, LoopRun+1),
			"27 passes in a row each wrote or asked to be requeued at once, 27 reconciles during the wait (configmap: 27) for 3 ConfigMap in spec-a, and 27 API writes"},
		{"requeued", 3, slices.Repeat([]step{{requeue: 3}}, LoopRun+1),
			"27 passes in a row each wrote or asked to be requeued at once, 27 reconciles during the wait (configmap: 27) for 3 ConfigMap in spec-a, and 0 API writes"},
		{"failed between", 1, slices.Concat(slices.Repeat([]step{{ok: 1, writes: 1}}, LoopRun), []step{{failed: 1}, {ok: 1, writes: 1}, {requeue: 1}}),
			"9 passes in a row each wrote or asked to be requeued at once, 10 reconciles during the wait (configmap: 10) for 1 ConfigMap in spec-a"},
		{"its write read first", 1, slices.Concat([]step{{writes: 1}, {ok: 1}}, slices.Repeat([]step{{ok: 1, writes: 1}}, LoopRun)),
			"9 passes in a row each wrote or asked to be requeued at once, 9 reconciles during the wait (configmap: 9) for 1 ConfigMap in spec-a, and 9 API writes"},
	} {
		// Named as the last step shows it, not once the operator has settled.
		if message, _ := stepped(t, c.objects, c.steps...); !strings.Contains(message, "the operator is in a reconcile loop: "+c.want) {
			t.Errorf("%s: failed with %q, want the loop named: %q", c.name, message, c.want)
		}
	}
}

// TestEventuallyTakesTheReconcilesOfObjectsGoneForNoLoop: where the wait lists none of the objects
// of the kind the operator reconciles (a cleanup deleted them, then what they owned: each deletion
// enqueues its gone owner; or a list that came back empty while the API server rebuilt its
// storage), no count of reconciles or of passes in a row makes a loop: the operator settles. Passes
// that ask to be requeued at once still make one, once the rate limiter's backoff shows it.
func TestEventuallyTakesTheReconcilesOfObjectsGoneForNoLoop(t *testing.T) {
	RegisterTestingT(t)
	message, _ := stepped(t, 0, step{ok: 2 * Loop}, step{ok: Loop})
	expectSettledAfterSteps(t, message)
	message, _ = stepped(t, 0, slices.Repeat([]step{{ok: 1, writes: 1}}, 2*LoopRun)...)
	expectSettledAfterSteps(t, message)
	want := "the operator is in a reconcile loop: its passes ask to be requeued at once, and the rate limiter's backoff now puts the next beyond 640ms; 9 reconciles during the wait (configmap: 9) for 0 ConfigMap in spec-a"
	if message, _ := stepped(t, 0, slices.Repeat([]step{{requeue: 1}}, LoopRun+1)...); !strings.Contains(message, want) {
		t.Errorf("failed with %q, want the loop named: %q", message, want)
	}
}

// TestEventuallyNamesARequeueLoopOnceItsBackoffShowsIt: an operator whose last passes asked to be
// requeued at once, and which has done nothing since for longer than the backoff of LoopRun of
// them in a row (640 ms), is in a loop (one object of 3 requeued at once again and again): named
// then, before Settle. One whose next pass came sooner, or did not ask, settles.
func TestEventuallyNamesARequeueLoopOnceItsBackoffShowsIt(t *testing.T) {
	RegisterTestingT(t)
	// A step every Poll, a read apart: the last ends 2 × Poll in.
	message, took := stepped(t, 3, step{requeue: 1}, step{ok: 1, requeue: 1, writes: 1})
	if took < 2*Poll+requeueBackoff || took > requeueBackoff+Settle/2 || !strings.Contains(message, "the operator is in a reconcile loop: its passes ask to be requeued at once, and the rate limiter's backoff now puts the next beyond 640ms; 3 reconciles during the wait") {
		t.Errorf("failed after %s with %q, want the loop named %s after the last step", took, message, requeueBackoff)
	}
	message, _ = stepped(t, 3, step{requeue: 1}, step{}, step{}, step{ok: 1})
	expectSettledAfterSteps(t, message)
	message, _ = stepped(t, 3, step{requeue: 1}, step{ok: 2})
	expectSettledAfterSteps(t, message)
}

// TestEventuallyNamesARunOfPassesOverObjectsItCannotCount: a fixture with no client (a unit
// test's) counts no objects, and takes LoopRun passes in a row and one more, each requeued at
// once, for a loop: one over 0 objects.
func TestEventuallyNamesARunOfPassesOverObjectsItCannotCount(t *testing.T) {
	RegisterTestingT(t)
	reconciles, reads := reconcileTotal(), 0
	gathered := gather(reconciles)
	f := &Fixture{Operator: fakeOperatorWith(&corev1.ConfigMap{}, func() ([]*dto.MetricFamily, error) {
		if reads++; reads > 1 { // a pass requeued at once before each read but the first
			reconciles.WithLabelValues("configmap", "requeue").Inc()
		}
		return gathered()
	}, map[string]float64{})}
	message, took, _ := failureOf(t, func() {
		f.Eventually(context.Background(), func() string { return "old" }).WithTimeout(4 * Settle).Should(Equal("new"))
	})
	if took > 2*Settle || !strings.Contains(message, "the operator is in a reconcile loop: 9 passes in a row each wrote or asked to be requeued at once, 9 reconciles during the wait (configmap: 9) for 0 objects") {
		t.Errorf("failed after %s with %q, want the loop named over 0 objects", took, message)
	}
}
