package harness

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/operator"
)

// EventuallySettled waits until the operator's counts stop moving (the same across AtRest/3) and
// returns them: the baseline a spec counts from. On e2e one operator serves every spec, and its
// reconciles of the previous spec's deleted objects may still be arriving.
func (f *Fixture) EventuallySettled(ctx context.Context) operator.Counts {
	GinkgoHelper()
	var settled operator.Counts
	// Polled every AtRest/3: counts that stayed the same across one interval have settled.
	Eventually(ctx, func(g Gomega) {
		previous := settled
		var err error
		settled, err = f.Operator.Counts()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(settled).To(Equal(previous))
	}).WithPolling(AtRest / 3).Should(Succeed())
	return settled
}

// ExpectAtRest watches, for AtRest, that the operator's counts keep matching counts and that none
// of objects moves from the resourceVersion it holds now: nothing the operator does writes them.
// objects are read afresh as it goes.
func (f *Fixture) ExpectAtRest(ctx context.Context, counts types.GomegaMatcher, objects ...client.Object) {
	GinkgoHelper()
	versions := make([]string, len(objects))
	for i, obj := range objects {
		versions[i] = obj.GetResourceVersion()
	}
	Consistently(ctx, func(g Gomega) {
		g.Expect(f.Operator.Counts()).To(counts)
		for i, obj := range objects {
			g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			g.Expect(obj.GetResourceVersion()).To(Equal(versions[i]), "the resourceVersion of %s", describe(obj))
		}
	}).Should(Succeed())
}

// EventuallyEvent waits until the spec's namespace holds an event (events.k8s.io) that matches,
// and returns it.
func (f *Fixture) EventuallyEvent(ctx context.Context, matcher types.GomegaMatcher) eventsv1.Event {
	GinkgoHelper()
	var found eventsv1.Event
	Eventually(ctx, func(g Gomega) {
		events := &eventsv1.EventList{}
		g.Expect(f.Client.List(ctx, events, client.InNamespace(f.Namespace))).To(Succeed())
		g.Expect(events.Items).To(ContainElement(matcher, &found))
	}).Should(Succeed())
	return found
}

func describe(obj client.Object) string {
	return fmt.Sprintf("%T %s/%s", obj, obj.GetNamespace(), obj.GetName())
}
