package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness"
)

// Metrics: the operator reports how much it reconciles and whether it ever panicked.
//
// Lesson: an operator is a long-running process that nobody watches; its metrics are how anyone
// finds out that it loops, errors or panics. controller-runtime counts reconciles, errors and
// panics per controller, and client-go the requests the operator sends (its writes are the POST,
// PUT, PATCH and DELETE of rest_client_requests_total). The e2e tier reads them the way Prometheus
// would: over HTTPS, with a ServiceAccount token that config/rbac's metrics-reader role lets
// through.
//
// Source: the Kubernetes Operator lecture notes, production concerns: an operator is observed
// through its metrics (reconciles, errors, panics).
//
// By hand (`make demo KEEP=1` prints the operator's metrics address and a metrics-reader token):
//
//	curl -sk -H "Authorization: Bearer $TOKEN" $METRICS | grep -E 'reconcile_(total|panics)|rest_client_requests_total'
var _ = Describe("Sample", Label("metrics"), func() {
	Context("when the operator has reconciled it", func() {
		It("reports reconcile totals for the sample controller and no panics", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			before, err := f.Operator.Read()
			Expect(err).NotTo(HaveOccurred())
			f.EventuallySynced(ctx, f.CreateSample(ctx, "counted", "hello world"))

			By("reading controller_runtime_reconcile_total{controller=\"sample\"}: it has counted this Sample's reconcile")
			f.Eventually(ctx, f.Operator.Read).
				Should(HaveField("Reconciles", BeNumerically(">", before.Reconciles)))

			By("reading controller_runtime_reconcile_panics_total: exported, and zero")
			Expect(f.Operator.Sum("controller_runtime_reconcile_panics_total", "", "")).To(BeZero())
		})
	})

	Context("when told how many Samples to reconcile at once", func() {
		// Characterization: written after the setting it proves, when the spec that compared the
		// workers with the default constant went, and the mutation sweep found that no spec
		// noticed the controller built without its options.
		It("runs that many workers: controller_runtime_max_concurrent_reconciles is its --max-concurrent-reconciles", Label(tiers.NeedsInProcessOperator, "characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster, harness.With(samples.Workers, 3))
			f.EventuallySynced(ctx, f.CreateSample(ctx, "counted", "hello world"))

			By("reading controller_runtime_max_concurrent_reconciles{controller=\"sample\"}")
			Expect(f.Operator.Sum("controller_runtime_max_concurrent_reconciles", "controller", "sample")).To(BeNumerically("==", 3))
		})
	})
})
