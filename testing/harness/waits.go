package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/harness/operator"
)

// EventuallySettled waits until the operator's reading stops moving (the same across 3 × Poll)
// and returns it: the baseline a spec counts from (a shared operator's reconciles of the previous
// spec's objects may still be arriving).
func (f *Fixture) EventuallySettled(ctx context.Context) operator.Reading {
	GinkgoHelper()
	var settled operator.Reading
	Eventually(ctx, func(g Gomega) {
		previous := settled
		var err error
		settled, err = f.Operator.Read()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(settled).To(Equal(previous))
	}).WithPolling(3 * Poll).Should(Succeed())
	return settled
}

// ExpectAtRest watches, for AtRest, that the operator's operator.Reading keeps matching reading
// and that none of objects (read afresh) moves from the resourceVersion it holds now. A failure
// names what the operator has written since it came up, by resource.
func (f *Fixture) ExpectAtRest(ctx context.Context, reading types.GomegaMatcher, objects ...client.Object) {
	GinkgoHelper()
	versions := make([]string, len(objects))
	for i, obj := range objects {
		versions[i] = obj.GetResourceVersion()
	}
	Consistently(ctx, func(g Gomega) {
		r, err := f.Operator.Read()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(r).To(reading, "the operator has written, since it came up: %s", perKey(r.ByResource))
		for i, obj := range objects {
			g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			g.Expect(obj.GetResourceVersion()).To(Equal(versions[i]), "the resourceVersion of %T %s/%s", obj, obj.GetNamespace(), obj.GetName())
		}
	}).Should(Succeed())
}

// EventuallyEvent waits until the spec's namespace holds an event (events.k8s.io) that matches;
// it fails once the operator has settled without recording one (Eventually).
func (f *Fixture) EventuallyEvent(ctx context.Context, matcher types.GomegaMatcher) {
	GinkgoHelper()
	f.Eventually(ctx, func(g Gomega) []eventsv1.Event {
		events := &eventsv1.EventList{}
		g.Expect(f.Client.List(ctx, events, client.InNamespace(f.Namespace))).To(Succeed())
		return events.Items
	}).Should(ContainElement(matcher))
}

// perKey reads counts by key (writes by resource, reconciles by controller): "configmaps: 1,
// widgets/status: 2".
func perKey(counts map[string]float64) string {
	out := make([]string, 0, len(counts))
	for _, key := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, fmt.Sprintf("%s: %.0f", key, counts[key]))
	}
	return cmp.Or(strings.Join(out, ", "), "nothing")
}

// Eventually is Gomega's Eventually, for what the operator does: it also fails as soon as the
// operator has settled without it (no reconcile and no write for Settle, and no retry that may
// still be due; a requeue after a while counts as ended), or is in a loop (loop), saying what the
// operator did, then what it saw last as Gomega says it: the value that does not match yet, or
// why the polled function failed (its error, an assertion of its Gomega). One that keeps working
// more slowly than a loop fails it at the timeout, named with its reconciles. Wait with Gomega's
// own for what others do (the garbage collector, the API server).
//
//	f.Eventually(ctx, komega.Object(widget)).Should(HaveField("Status.Ready", BeTrue()))
func (f *Fixture) Eventually(ctx context.Context, actual any) Wait {
	return Wait{Eventually(ctx, actual).WithOffset(1), f, ctx}
}

// Wait is an Eventually for what the operator does (Fixture.Eventually).
type Wait struct {
	eventually types.AsyncAssertion
	f          *Fixture
	ctx        context.Context
}

// WithTimeout waits up to d, not Converge: for what takes longer by design, with the reason beside it.
func (w Wait) WithTimeout(d time.Duration) Wait {
	w.eventually = w.eventually.WithTimeout(d)
	return w
}

// Should waits until actual matches matcher, and fails once the operator has settled without it.
// A watcher reads the operator every Poll meanwhile and ends the wait by cancelling its context
// with the reason: Gomega fails with "Context was cancelled (cause: …)", then what it saw last.
// The watcher has stopped when Should returns. A failure's description is the caller's, then, at
// a timeout, why the operator was not taken as settled.
func (w Wait) Should(matcher types.GomegaMatcher, description ...any) bool {
	ctx, cancel := context.WithCancelCause(w.ctx)
	watch := &watcher{f: w.f, ctx: ctx}
	watch.read() // the reading the wait counts from, before its first poll
	var watching sync.WaitGroup
	defer watching.Wait()
	defer cancel(nil)
	watching.Go(func() { watch.run(cancel) })
	return w.eventually.WithContext(ctx).Should(matcher, func() string { return watch.describe(description) })
}

// watcher follows the operator during a wait (Wait.Should). Its fields after unsettled are read's
// alone: Should's first, then run's on the watcher's goroutine.
type watcher struct {
	f   *Fixture
	ctx context.Context
	// unsettled is why the operator was not taken as settled at the last reading (notSettled),
	// for the description of a wait that times out.
	unsettled atomic.Value
	// first is the operator's reading when the wait began; last, when it last moved, at since;
	// retries, how many of its reconciles ended in an error that is retried.
	first, last operator.Reading
	since       time.Time
	retries     float64
	// previous is the reading before this one; busy, how many passes in a row up to it each wrote
	// or asked to be requeued at once (follow), and spare, the writes and requeues counted beyond
	// one for each; requeued, whether the last of them asked to be requeued at once.
	previous    operator.Reading
	busy, spare float64
	requeued    bool
}

// run reads the operator every Poll until the wait ends, and ends it, cancelling its context
// with the reason, once the operator has settled or is in a loop.
func (w *watcher) run(cancel context.CancelCauseFunc) {
	_ = wait.PollUntilContextCancel(w.ctx, Poll, false, func(context.Context) (bool, error) { // ends with the wait's context, its only error
		why := w.read()
		if why != "" {
			cancel(errors.New(why))
		}
		return why != "", nil
	})
}

// read reads the operator and says why the wait ends, if it has settled or is in a loop; "" if
// not, or if it cannot be read.
func (w *watcher) read() (why string) {
	r, err := w.f.Operator.Read()
	unsettled := ""
	if err == nil {
		if w.since.IsZero() {
			w.first, w.previous = r, r
		}
		w.follow(r)
		settled := w.settled(r)
		why = cmp.Or(w.loop(r), settled)
		unsettled = w.notSettled(r, why)
	}
	w.unsettled.Store(unsettled)
	return why
}

// Loop is how many reconciles during one wait, for each object of the kind the operator
// reconciles, make a loop. Converging takes a few (the create, a Conflict retried, what it
// creates coming back through its watches); a requeue at once goes past this within a second.
const Loop = 50

// LoopRun is how many passes in a row, for each object of the kind the operator reconciles, that
// each wrote or asked to be requeued at once make a loop, however slowly they come (a loaded
// machine, the rate limiter's backoff). Converging takes a few (a finalizer added, a child
// created, the status written), and a pass that does neither ends the run. The rate limiter puts
// off each pass that follows a requeue at once twice as long as the one before, from 5 ms: the
// ninth comes 1.3 s after the first.
const LoopRun = 8

// requeueBackoff is how long the operator may do nothing after a pass that asked to be requeued
// at once before the rate limiter's backoff shows more than LoopRun of them in a row: it puts off
// the first by 5 ms, and each next in a row twice as long, so a pause longer than the delay after
// the eighth (640 ms) comes after the ninth at the earliest.
const requeueBackoff = 5 * time.Millisecond << (LoopRun - 1)

// follow counts, from the reading before r, the passes in a row that each wrote or asked to be
// requeued at once: one that did neither, as far as the counts tell, ends the run; one that
// failed (Retried) neither counts nor ends it. A write is counted as it is sent, its pass as it
// ends: one read between the two finds the write before its pass, which the next pass may
// take (spare).
func (w *watcher) follow(r operator.Reading) {
	d := r.Minus(w.previous)
	w.previous = r
	w.spare += d.Writes + d.Requeued
	switch passes := d.Reconciles - d.Retried; {
	case passes <= 0:
	case w.spare >= passes:
		w.busy += passes
		w.spare -= passes
		w.requeued = d.Requeued > 0
	default:
		w.busy, w.spare, w.requeued = 0, 0, false
	}
}

// loop says what the operator did during the wait, if it is in a loop: where it lists any object,
// more than Loop reconciles of each, or more than LoopRun passes in a row for each that each wrote
// or asked to be requeued at once; or a pass that asked to be requeued at once and none since for
// longer than requeueBackoff (the backoff of more than LoopRun requeues in a row). "" if not, or
// if it cannot tell.
func (w *watcher) loop(r operator.Reading) string {
	during := r.Minus(w.first)
	backedOff := w.requeued && time.Since(w.since) > requeueBackoff
	if during.Reconciles <= Loop && w.busy <= LoopRun && !backedOff {
		return ""
	}
	// As many as the objects of the kind it reconciles in the spec's namespace (with no kind or no
	// client, a unit test's, none).
	objects, kind, byCount := 0, "objects", true
	if k := w.f.Operator.Subject().Kind; k != nil && w.f.Client != nil {
		list := w.f.listOf(k)
		if err := w.f.Client.List(w.ctx, list, client.InNamespace(w.f.Namespace)); err != nil {
			return ""
		}
		objects, kind = len(list.Items), strings.TrimSuffix(list.Kind, "List")+" in "+w.f.Namespace
		// None listed (a cleanup's deletions, whose reconciles are the echoes of the deletions of
		// what they owned, each enqueueing its gone owner; or a list the API server answered empty
		// while it rebuilt its storage): no count makes a loop, a requeue loop shows by its backoff.
		byCount = objects > 0
	}
	each := float64(max(objects, 1))
	var why string
	switch {
	case byCount && during.Reconciles > Loop*each:
	case byCount && w.busy > LoopRun*each:
		why = fmt.Sprintf("%.0f passes in a row each wrote or asked to be requeued at once, ", w.busy)
	case backedOff:
		why = fmt.Sprintf("its passes ask to be requeued at once, and the rate limiter's backoff now puts the next beyond %s; ", requeueBackoff)
	default:
		return ""
	}
	return fmt.Sprintf("the operator is in a reconcile loop: %s%s for %d %s, and %.0f API writes", why, w.during(r), objects, kind, during.Writes)
}

// during is how many reconciles the operator finished since the wait began, by controller:
// "51 reconciles during the wait (widget: 51)".
func (w *watcher) during(r operator.Reading) string {
	during := r.Minus(w.first)
	return fmt.Sprintf("%.0f reconciles during the wait (%s)", during.Reconciles, perKey(during.ByController))
}

// retried is how many failed reconciles an operator's retries are sure to have followed within
// Settle: controller-runtime's rate limiter retries 5 ms after a failure, doubling with each in a
// row, so after 9, 5 ms × 2⁸ = 1.28 s. After more, a retry may still be due that no count shows.
const retried = 9

// settled says, if the operator has done nothing for Settle, what it did before; "" if not.
func (w *watcher) settled(r operator.Reading) string {
	switch quiet := time.Since(w.since); {
	case w.since.IsZero() || moved(r, w.last):
		w.last, w.since = r, time.Now()
	case r.Retried > retried:
		w.retries = r.Retried
	case quiet >= Settle:
		during := r.Minus(w.first)
		return fmt.Sprintf("the operator settled without it: no reconcile and no API write for %s, after %.0f reconciles and %.0f writes, %s and %.0f writes (%s)",
			quiet.Round(100*time.Millisecond), r.Reconciles, r.Writes, w.during(r), during.Writes, perKey(during.ByResource))
	}
	return ""
}

// moved says whether the operator reconciled or wrote between then and now.
func moved(now, then operator.Reading) bool {
	return now.Reconciles != then.Reconciles || now.Writes != then.Writes
}

// notSettled says why the operator, read r, is not taken as settled, if it moved during the wait:
// it moved within Settle, or a retry may still be due; "" once the watcher ends the wait (why).
func (w *watcher) notSettled(r operator.Reading, why string) string {
	switch {
	case why != "":
	case moved(r, w.first) && time.Since(w.since) < Settle:
		return fmt.Sprintf("the operator never settled: %s and %.0f API writes, the last within %s of its end: requeues sooner than that",
			w.during(r), r.Writes-w.first.Writes, Settle)
	case w.retries > retried:
		return fmt.Sprintf("the operator was not taken as settled: %.0f of its reconciles ended in an error, a retry may still be due", w.retries)
	}
	return ""
}

// describe is the caller's description of the wait (Gomega's: a format and its arguments, or a
// func() string), then why the operator was not taken as settled at the last reading, if it was not.
func (w *watcher) describe(description []any) string {
	said := ""
	if len(description) > 0 {
		said = fmt.Sprintf(fmt.Sprint(description[0]), description[1:]...)
		if describe, ok := description[0].(func() string); ok {
			said = describe()
		}
	}
	unsettled, _ := w.unsettled.Load().(string)
	return strings.Trim(said+"\n"+unsettled, "\n")
}
