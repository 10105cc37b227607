package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"runtime"
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
// still be due; a requeue after a while counts as ended), or is in a loop (loop), saying what it
// saw and what the operator did: whether the value does not match yet or the polled function
// failed (its error, an assertion of its Gomega), naming the object such a function returned.
// One that keeps working more slowly than a loop fails it at the timeout, named with its
// reconciles. Wait with Gomega's own for what others do (the garbage collector, the API server).
//
//	f.Eventually(ctx, komega.Object(widget)).Should(HaveField("Status.Ready", BeTrue()))
func (f *Fixture) Eventually(ctx context.Context, actual any) Wait {
	return Wait{Eventually(ctx, polled(ctx, actual)).WithOffset(1), f, ctx}
}

// failedPoll is what a polled function that failed gave the matcher instead of a value: why it
// failed, as Gomega says it, naming the object it returned (komega.Object's).
type failedPoll struct{ message string }

// pollable says whether Gomega polls a function of type t given its in arguments: it returns a
// value, or takes a Gomega to fail, and every result after the first is an error.
func pollable(t reflect.Type, in int, takesGomega bool) bool {
	for i := 1; i < t.NumOut(); i++ {
		if t.Out(i) != reflect.TypeFor[error]() {
			return false
		}
	}
	return t.NumIn() == in && (t.NumOut() > 0 || takesGomega)
}

// polled is actual, a function Gomega polls, made to hand the matcher a failedPoll when it fails
// (its error, or an assertion of its Gomega), so that the settled and loop checks run then too.
// Anything else, and a function of a signature Gomega would refuse, is actual as it is.
func polled(ctx context.Context, actual any) any {
	fn := reflect.ValueOf(actual)
	if fn.Kind() != reflect.Func {
		return actual
	}
	t, in := fn.Type(), []reflect.Value{}
	var failure string
	takesGomega := t.NumIn() > 0 && t.In(0) == reflect.TypeFor[Gomega]()
	if takesGomega {
		in = append(in, reflect.ValueOf(NewGomega(func(message string, callerSkip ...int) {
			_, file, line, _ := runtime.Caller(callerSkip[0] + 1) // Gomega's assertions give it
			failure = fmt.Sprintf("The function passed to Eventually failed at %s:%d with:\n%s", file, line, message)
			panic(failure)
		})))
	}
	if t.NumIn() > len(in) && t.In(len(in)) == reflect.TypeFor[context.Context]() {
		in = append(in, reflect.ValueOf(ctx))
	}
	if !pollable(t, len(in), takesGomega) {
		return actual
	}
	return func() (value any, err error) {
		failure = ""
		defer func() {
			if failure != "" {
				_ = recover() // the panic of its Gomega's failure, which failure holds
				value, err = failedPoll{failure}, nil
			}
		}()
		out := fn.Call(in)
		if len(out) == 0 {
			return nil, nil
		}
		value = out[0].Interface()
		for _, extra := range out[1:] {
			e, _ := extra.Interface().(error)
			if signal := PollingSignalError(nil); errors.As(e, &signal) {
				return value, e
			}
			if e != nil {
				return failedPoll{fmt.Sprintf("The function passed to Eventually returned the following error%s:\n    %v", naming(value), e)}, nil
			}
		}
		return value, nil
	}
}

// naming names obj, if it is an object: ", for ConfigMap spec-x/web-config".
func naming(obj any) string {
	o, ok := obj.(client.Object)
	if !ok || reflect.ValueOf(o).IsNil() {
		return ""
	}
	kind := cmp.Or(o.GetObjectKind().GroupVersionKind().Kind, reflect.TypeOf(o).Elem().Name())
	return fmt.Sprintf(", for %s %s", kind, client.ObjectKeyFromObject(o))
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
func (w Wait) Should(matcher types.GomegaMatcher, description ...any) bool {
	return w.eventually.Should(&settledMatcher{GomegaMatcher: matcher, Wait: w}, description...)
}

// settledMatcher is matcher, except that a value it does not match while the operator has
// settled stops the wait (StopTrying), and a failure says what the operator did meanwhile.
type settledMatcher struct {
	types.GomegaMatcher
	Wait
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

func (m *settledMatcher) Match(actual any) (bool, error) {
	if _, failed := actual.(failedPoll); !failed {
		ok, err := m.GomegaMatcher.Match(actual)
		if ok || err != nil {
			return ok, err
		}
	}
	r, err := m.f.Operator.Read()
	if err != nil {
		return false, nil
	}
	if m.since.IsZero() {
		m.first, m.previous = r, r
	}
	m.follow(r)
	settled := m.settled(r)
	if why := cmp.Or(m.loop(r), settled); why != "" {
		StopTrying(why + "; it saw:\n" + m.saw(actual)).Now()
	}
	return false, nil
}

// saw is what the wait saw last: why the polled function failed, or why the value does not match.
func (m *settledMatcher) saw(actual any) string {
	if failed, ok := actual.(failedPoll); ok {
		return failed.message
	}
	return m.GomegaMatcher.FailureMessage(actual)
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
func (m *settledMatcher) follow(r operator.Reading) {
	d := r.Minus(m.previous)
	m.previous = r
	m.spare += d.Writes + d.Requeued
	switch passes := d.Reconciles - d.Retried; {
	case passes <= 0:
	case m.spare >= passes:
		m.busy += passes
		m.spare -= passes
		m.requeued = d.Requeued > 0
	default:
		m.busy, m.spare, m.requeued = 0, 0, false
	}
}

// loop says what the operator did during the wait, if it is in a loop: more than Loop reconciles
// of each object, more than LoopRun passes in a row for each that each wrote or asked to be
// requeued at once, or a pass that asked to be requeued at once and none since for longer than
// requeueBackoff (the backoff of more than LoopRun requeues in a row). "" if not, or if it cannot
// tell.
func (m *settledMatcher) loop(r operator.Reading) string {
	during := r.Minus(m.first)
	backedOff := m.requeued && time.Since(m.since) > requeueBackoff
	if during.Reconciles <= Loop && m.busy <= LoopRun && !backedOff {
		return ""
	}
	// As many as the objects of the kind it reconciles in the spec's namespace (with no kind or no
	// client, a unit test's, none).
	objects, kind := 0, "objects"
	if k := m.f.Operator.Subject().Kind; k != nil && m.f.Client != nil {
		list := m.f.listOf(k)
		if err := m.f.Client.List(m.ctx, list, client.InNamespace(m.f.Namespace)); err != nil {
			return ""
		}
		objects, kind = len(list.Items), strings.TrimSuffix(list.Kind, "List")+" in "+m.f.Namespace
	}
	each := float64(max(objects, 1))
	var why string
	switch {
	case during.Reconciles > Loop*each:
	case m.busy > LoopRun*each:
		why = fmt.Sprintf("%.0f passes in a row each wrote or asked to be requeued at once, ", m.busy)
	case backedOff:
		why = fmt.Sprintf("its passes ask to be requeued at once, and the rate limiter's backoff now puts the next beyond %s; ", requeueBackoff)
	default:
		return ""
	}
	return fmt.Sprintf("the operator is in a reconcile loop: %s%s for %d %s, and %.0f API writes", why, m.during(r), objects, kind, during.Writes)
}

// during is how many reconciles the operator finished since the wait began, by controller:
// "51 reconciles during the wait (widget: 51)".
func (m *settledMatcher) during(r operator.Reading) string {
	during := r.Minus(m.first)
	return fmt.Sprintf("%.0f reconciles during the wait (%s)", during.Reconciles, perKey(during.ByController))
}

// retried is how many failed reconciles an operator's retries are sure to have followed within
// Settle: controller-runtime's rate limiter retries 5 ms after a failure, doubling with each in a
// row, so after 9, 5 ms × 2⁸ = 1.28 s. After more, a retry may still be due that no count shows.
const retried = 9

// settled says, if the operator has done nothing for Settle, what it did before; "" if not.
func (m *settledMatcher) settled(r operator.Reading) string {
	switch quiet := time.Since(m.since); {
	case m.since.IsZero() || moved(r, m.last):
		m.last, m.since = r, time.Now()
	case r.Retried > retried:
		m.retries = r.Retried
	case quiet >= Settle:
		during := r.Minus(m.first)
		return fmt.Sprintf("the operator settled without it: no reconcile and no API write for %s, after %.0f reconciles and %.0f writes, %s and %.0f writes (%s)",
			quiet.Round(100*time.Millisecond), r.Reconciles, r.Writes, m.during(r), during.Writes, perKey(during.ByResource))
	}
	return ""
}

// moved says whether the operator reconciled or wrote between then and now.
func moved(now, then operator.Reading) bool {
	return now.Reconciles != then.Reconciles || now.Writes != then.Writes
}

// FailureMessage is what the wait saw, and why the operator was not taken as settled.
func (m *settledMatcher) FailureMessage(actual any) string {
	message := m.saw(actual)
	r, err := m.f.Operator.Read()
	switch {
	case err != nil || m.since.IsZero():
	case moved(r, m.first) && (moved(r, m.last) || time.Since(m.since) < Settle):
		message += fmt.Sprintf("\nthe operator never settled: %s and %.0f API writes, the last within %s of its end: requeues sooner than that",
			m.during(r), r.Writes-m.first.Writes, Settle)
	case m.retries > retried:
		message += fmt.Sprintf("\nthe operator was not taken as settled: %.0f of its reconciles ended in an error, a retry may still be due", m.retries)
	}
	return message
}
