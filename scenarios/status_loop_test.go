package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/scenarios/samples"
)

// Status-loop avoidance: once converged, the operator and its objects stand still.
//
// Lesson: a status write is a write to the Sample, and every write to a watched object is an
// event. An operator that stamps the time into status on every pass (or rebuilds conditions with a
// fresh lastTransitionTime) triggers itself forever: resourceVersions climb, the reconcile count
// climbs, and etcd fills with history. Status is written only when its content changes, and
// status-only changes start no reconcile (GenerationChangedPredicate).
//
// Source: the Kubernetes Operator lecture notes, common failures: a status update that triggers the
// next reconcile, forever.
//
// By hand:
//
//	kubectl get sample sample-sample -o jsonpath='{.metadata.resourceVersion}'; sleep 10
//	kubectl get sample sample-sample -o jsonpath='{.metadata.resourceVersion}'   # the same
//	curl -sk -H "Authorization: Bearer $TOKEN" $METRICS | grep 'reconcile_total{controller="sample"'  # flat (see Metrics)
var _ = Describe("Sample", Label("status-loop"), func() {
	Context("when it has converged", func() {
		It("stays at rest: no reconciles, no writes, no resourceVersion moves, observedGeneration current", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "resting", "hello world")
			cm := f.EventuallySynced(ctx, sample)
			Expect(sample.Status.ObservedGeneration).To(Equal(sample.Generation))

			By("waiting until the reconcile count stops moving")
			settled := f.EventuallySettled(ctx)
			Expect(komega.Get(cm)()).To(Succeed())
			Expect(komega.Get(sample)()).To(Succeed())

			By("watching counts and resourceVersions stay where they are")
			f.ExpectAtRest(ctx, Equal(settled), cm, sample)
			Expect(sample.Status.ObservedGeneration).To(Equal(sample.Generation))
		})
	})
})
