package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/harness/operator"
)

// EventuallySettled waits until the operator's counts stop moving (the same across 3 × Poll) and
// returns them: the baseline a spec counts from. On e2e one operator serves every spec, and its
// reconciles of the previous spec's deleted objects may still be arriving.
func (f *Fixture) EventuallySettled(ctx context.Context) operator.Counts {
	GinkgoHelper()
	var settled operator.Counts
	// Polled every 3 × Poll: counts that stayed the same across one interval have settled.
	Eventually(ctx, func(g Gomega) {
		previous := settled
		var err error
		settled, err = f.Operator.Counts()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(settled).To(Equal(previous))
	}).WithPolling(3 * Poll).Should(Succeed())
	return settled
}

// ExpectAtRest watches, for AtRest, that the operator's counts keep matching counts and that none
// of objects moves from the resourceVersion it holds now: nothing the operator does writes them.
// objects are read afresh as it goes. A failure names what the operator has written since it came
// up, by resource.
func (f *Fixture) ExpectAtRest(ctx context.Context, counts types.GomegaMatcher, objects ...client.Object) {
	GinkgoHelper()
	versions := make([]string, len(objects))
	for i, obj := range objects {
		versions[i] = obj.GetResourceVersion()
	}
	Consistently(ctx, func(g Gomega) {
		writes, err := f.Operator.WritesByResource()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(f.Operator.Counts()).To(counts, "the operator has written, since it came up: %s", perKey(writes))
		for i, obj := range objects {
			g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			g.Expect(obj.GetResourceVersion()).To(Equal(versions[i]), "the resourceVersion of %s", describe(obj))
		}
	}).Should(Succeed())
}

// EventuallyEvent waits until the spec's namespace holds an event (events.k8s.io) that matches,
// and returns it; it fails once the operator has settled without recording one (Eventually).
func (f *Fixture) EventuallyEvent(ctx context.Context, matcher types.GomegaMatcher) eventsv1.Event {
	GinkgoHelper()
	var found eventsv1.Event
	f.Eventually(ctx, func(g Gomega) {
		events := &eventsv1.EventList{}
		g.Expect(f.Client.List(ctx, events, client.InNamespace(f.Namespace))).To(Succeed())
		g.Expect(events.Items).To(ContainElement(matcher, &found))
	}).Should(Succeed())
	return found
}

// perKey reads counts by key (writes by resource, reconciles by controller): "configmaps: 1,
// samples/status: 2".
func perKey(counts map[string]float64) string {
	out := make([]string, 0, len(counts))
	for key, n := range counts {
		out = append(out, fmt.Sprintf("%s: %.0f", key, n))
	}
	if len(out) == 0 {
		return "nothing"
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func describe(obj client.Object) string {
	return fmt.Sprintf("%T %s/%s", obj, obj.GetNamespace(), obj.GetName())
}

// Eventually is Gomega's Eventually, for what the operator does: it waits as long, but also
// fails as soon as the operator has settled without what it waits for (no reconcile and no write
// for Settle since the wait began, and no reconcile of its ended in an error that is retried; a
// requeue counts as ended), with what it saw then. A scenario written before the code it needs is
// red in seconds, not after Converge; a green one is as fast as with Gomega's Eventually. An
// operator that never settles (a loop) fails it at the timeout, named with its reconciles by
// controller. Wait with Gomega's own for what others do (the garbage collector, the API server).
//
//	f.Eventually(ctx, komega.Object(sample)).Should(samples.HaveReady(metav1.ConditionTrue, demov1alpha1.ReasonSynced))
func (f *Fixture) Eventually(ctx context.Context, actual any) Wait {
	return Wait{Eventually(ctx, actual).WithOffset(1), f.Operator}
}

// Wait is an Eventually for what the operator does (Fixture.Eventually).
type Wait struct {
	eventually types.AsyncAssertion
	operator   *operator.Operator
}

// WithTimeout waits up to d, not Converge: for what takes longer by design, with the reason beside it.
func (w Wait) WithTimeout(d time.Duration) Wait {
	return Wait{w.eventually.WithTimeout(d), w.operator}
}

// Should waits until actual matches matcher, and fails once the operator has settled without it.
func (w Wait) Should(matcher types.GomegaMatcher, description ...any) bool {
	return w.eventually.Should(&settledMatcher{GomegaMatcher: matcher, operator: w.operator}, description...)
}

// settledMatcher is matcher, except that a value it does not match while the operator has
// settled stops the wait (StopTrying), and a failure says what the operator did meanwhile.
type settledMatcher struct {
	types.GomegaMatcher
	operator *operator.Operator
	// first is the operator's counts when the wait began, by controller too; last, when they last
	// moved, at since; retries, how many of its reconciles ended in an error that is retried.
	first, last operator.Counts
	firstBy     map[string]float64
	since       time.Time
	retries     float64
}

func (m *settledMatcher) Match(actual any) (bool, error) {
	ok, err := m.GomegaMatcher.Match(actual)
	if ok || err != nil {
		return ok, err
	}
	if quiet, why := m.settled(); quiet {
		StopTrying(fmt.Sprintf("the operator settled without it: %s; it saw:\n%s", why, m.GomegaMatcher.FailureMessage(actual))).Now()
	}
	return false, nil
}

// settled says whether the operator has done nothing for Settle, and what it did before.
func (m *settledMatcher) settled() (bool, string) {
	counts, err := m.operator.Counts()
	if err != nil {
		return false, ""
	}
	now := time.Now()
	if m.since.IsZero() {
		m.first = counts
		m.firstBy, _ = m.operator.ReconcilesByController()
	}
	if m.since.IsZero() || counts != m.last {
		m.last, m.since = counts, now
		return false, ""
	}
	if retries, err := m.operator.Retries(); err != nil || retries > 0 {
		m.retries = retries
		return false, ""
	}
	quiet := now.Sub(m.since)
	if quiet < Settle {
		return false, ""
	}
	return true, fmt.Sprintf("no reconcile and no API write for %s, after %.0f reconciles and %.0f writes", quiet.Round(100*time.Millisecond), counts.Reconciles, counts.Writes)
}

// FailureMessage is the matcher's, and why the operator was not taken as settled: it kept
// reconciling or writing until the wait ended (a loop), or a retry was pending.
func (m *settledMatcher) FailureMessage(actual any) string {
	message := m.GomegaMatcher.FailureMessage(actual)
	counts, err := m.operator.Counts()
	byController, byErr := m.operator.ReconcilesByController()
	switch {
	case err != nil || byErr != nil || m.since.IsZero():
	case counts != m.first && (counts != m.last || time.Since(m.since) < Settle):
		message += fmt.Sprintf("\nthe operator never settled: %.0f reconciles during the wait (%s) and %.0f API writes, the last within %s of its end: a reconcile loop, or requeues sooner than that",
			counts.Reconciles-m.first.Reconciles, perKey(minus(byController, m.firstBy)), counts.Writes-m.first.Writes, Settle)
	case m.retries > 0:
		message += fmt.Sprintf("\nthe operator was not taken as settled: %.0f of its reconciles ended in an error, a retry pending", m.retries)
	}
	return message
}

// minus is each count of now less the count of the same key in then, leaving out those that did
// not move.
func minus(now, then map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for key, n := range now {
		if n != then[key] {
			out[key] = n - then[key]
		}
	}
	return out
}
