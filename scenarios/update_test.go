package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
)

// Update on spec change: a new spec.message reaches the ConfigMap.
//
// Lesson: a reconcile compares the whole desired state with the whole observed state; it never
// asks "what changed?". The same code that created the ConfigMap updates it, and status records
// which generation of the spec it has acted on (observedGeneration).
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §10, `kubectl patch sample/sample-sample --type merge -p
// '{"spec":{"message":"updated"}}'`: the ConfigMap follows.
//
// By hand:
//
//	kubectl patch samples.v1alpha1.demo.example.com sample-sample --type merge -p '{"spec":{"message":"hello again"}}'
//	kubectl get configmap sample-sample-config -o jsonpath='{.data.message}'   # hello again
var _ = Describe("Sample", Label("update"), func() {
	Context("when spec.message changes", func() {
		It("updates the ConfigMap and reports the new generation as observed", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "changing", "hello world")
			f.EventuallySynced(ctx, sample)

			By("changing spec.message to \"hello again\"")
			Expect(komega.Update(sample, func() { sample.Spec.Message = "hello again" })()).To(Succeed())
			Expect(sample.Generation).To(BeNumerically("==", 2))

			By("waiting for the ConfigMap to hold the new message and the status to observe generation 2")
			cm := f.EventuallySynced(ctx, sample)
			Expect(cm.Data).To(HaveKeyWithValue(demov1alpha1.MessageKey, "hello again"))
			Expect(sample.Status.ObservedGeneration).To(BeNumerically("==", 2))
		})
	})
})
