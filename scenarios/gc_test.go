package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
)

// GC on delete: deleting a Sample deletes its ConfigMap.
//
// Lesson: the operator deletes nothing. Kubernetes' garbage collector (in kube-controller-manager)
// deletes every object whose owners are all gone; the controller reference the operator set at
// creation is all it needs. envtest runs no kube-controller-manager, so the envtest tier proves the
// reference and the e2e tier, which runs one, proves the deletion.
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §10, closing remark: `kubectl delete sample/sample-sample` takes the ConfigMap with it
// (owner reference, garbage collection).
//
// By hand:
//
//	kubectl delete sample sample-sample
//	kubectl get configmap sample-sample-config   # NotFound, within a second or so
var _ = Describe("Sample", Label("gc"), func() {
	Context("when it is deleted", func() {
		It("has given its ConfigMap the controller reference that garbage collection follows (envtest has no garbage collector; e2e proves the deletion)", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "owner", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("checking the ConfigMap's one controller reference: this Sample, blocking owner deletion")
			Expect(cm.OwnerReferences).To(ConsistOf(And(
				HaveField("UID", sample.UID),
				HaveField("Controller", ptr.To(true)),
				HaveField("BlockOwnerDeletion", ptr.To(true)),
			)))
		})

		It("loses its ConfigMap to the garbage collector", Label(tiers.NeedsGarbageCollector), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "owner", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("deleting the Sample in the foreground, so its deletion waits for its dependents")
			Expect(f.Client.Delete(ctx, sample, client.PropagationPolicy("Foreground"))).To(Succeed())

			By("waiting for the ConfigMap and then the Sample to be gone")
			Eventually(komega.Get(cm)).
				Should(Satisfy(apierrors.IsNotFound))
			Eventually(komega.Get(sample)).
				Should(Satisfy(apierrors.IsNotFound))
		})
	})

	Context("when it is being deleted, held back by another finalizer", func() {
		// Characterization: written after the check it proves (a Sample being deleted is left
		// alone), when the mutation sweep found that no spec noticed it gone.
		It("recreates nothing: its ConfigMap is left to the garbage collector", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "held", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("holding the Sample with a finalizer of another controller's, then deleting it")
			Expect(komega.Update(sample, func() {
				sample.Finalizers = append(sample.Finalizers, "scenarios.demo.example.com/hold")
			})()).To(Succeed())
			DeferCleanup(komega.Update(sample, func() { sample.Finalizers = nil }))
			before := f.EventuallySettled(ctx)
			Expect(f.Client.Delete(ctx, sample)).To(Succeed())
			Eventually(komega.Object(sample)).Should(HaveField("DeletionTimestamp", Not(BeNil())))

			By("waiting for the operator to see the deletion, which bumps the generation and so starts a reconcile")
			// Its cache learns of the deletion and of the ConfigMap's from two watches, in either
			// order: without this wait it may recreate the ConfigMap of a Sample it still sees live.
			f.Eventually(ctx, f.Operator.Read).Should(HaveField("Reconciles", BeNumerically(">", before.Reconciles)))

			By("deleting its ConfigMap, as the garbage collector does once the Sample is gone")
			Expect(f.Client.Delete(ctx, cm)).To(Succeed())

			By("checking, for the at-rest time, that the operator does not create it again")
			Consistently(komega.Get(cm)).
				Should(Satisfy(apierrors.IsNotFound))
		})
	})
})
