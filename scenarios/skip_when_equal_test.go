package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/scenarios/samples"
)

// Skip when equal: a reconcile that finds the ConfigMap as it should be writes nothing.
//
// Lesson: a reconcile runs far more often than anything changes (every watch event, every resync,
// every restart). An operator that writes on every pass loads the API server and etcd with no-op
// updates and, through its own watch, can keep itself busy forever. Compare first; write only the
// difference.
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §4.2 and §8.2, idempotency: Reconcile compares current with desired and updates only
// when they differ.
//
// By hand:
//
//	kubectl get configmap sample-sample-config -o jsonpath='{.metadata.resourceVersion}'
//	kubectl annotate configmap sample-sample-config touched=now      # starts a reconcile
//	kubectl get configmap sample-sample-config -o jsonpath='{.metadata.resourceVersion}'  # only your edit moved it
var _ = Describe("Sample", Label("skip-when-equal"), func() {
	Context("when a reconcile finds nothing to change", func() {
		It("sends no API write and leaves the resourceVersions where they were", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "steady", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("annotating the ConfigMap, a change the operator does not manage, to start a reconcile")
			before, err := f.Operator.Read()
			Expect(err).NotTo(HaveOccurred())
			Expect(komega.Update(cm, func() {
				cm.Annotations = map[string]string{"example.com/touched": "by the scenario"}
			})()).To(Succeed())

			By("waiting for the operator to reconcile the Sample")
			f.Eventually(ctx, f.Operator.Read).Should(HaveField("Reconciles", BeNumerically(">", before.Reconciles)))

			By("checking that it sent no write and moved no resourceVersion")
			f.ExpectAtRest(ctx, HaveField("Writes", before.Writes), cm, sample)
		})
	})
})
