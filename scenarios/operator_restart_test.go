package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
)

// Operator restart: an operator that starts over converged state finds nothing to do, and one that
// was down catches up with what happened meanwhile.
//
// Lesson: an operator does not remember; on every start it lists everything and reconciles it
// all. That is only safe when a pass over converged state writes nothing (or a restart, a leader
// change, an upgrade, rewrites every object in the cluster), and it is what makes the operator
// correct drift that happened while it was down: level-triggered, not edge-triggered.
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §10, the restart after adding Owns: the ConfigMap deleted while `make run` was stopped
// is back when it starts, with its owner reference.
//
// By hand (on a cluster where `make deploy` ran):
//
//	kubectl -n operator-demo-system rollout restart deployment operator-demo-controller-manager
//	kubectl get configmap sample-sample-config -o jsonpath='{.metadata.resourceVersion}'   # unchanged
var _ = Describe("Sample", Label("operator-restart"), SpecPriority(1), func() {
	Context("when the operator restarts over converged state", func() {
		It("reconciles every Sample again and writes nothing", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			// v1beta1, the version stored: its reads need no conversion, which a restarted
			// operator serves only once its Pod is Ready on a cluster.
			sample := f.CreateSampleData(ctx, "restarted", map[string]string{demov1alpha1.MessageKey: "hello world"})
			cm := f.EventuallySynced(ctx, sample)

			By("stopping the operator and starting it again")
			Expect(f.Operator.Down()).To(Succeed())
			Expect(f.Operator.Up()).To(Succeed())

			By("waiting for the new operator's first pass over the Sample")
			f.Eventually(ctx, f.Operator.Read).
				Should(HaveField("Reconciles", BeNumerically(">=", 1)))

			By("checking that it wrote nothing and moved no resourceVersion")
			f.ExpectAtRest(ctx, HaveField("Writes", BeZero()), cm, sample)
		})
	})

	Context("when its ConfigMap is deleted while the operator is down", func() {
		It("recreates the ConfigMap when the operator comes back", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSampleData(ctx, "caught-up", map[string]string{demov1alpha1.MessageKey: "hello world"})
			cm := f.EventuallySynced(ctx, sample)

			By("stopping the operator")
			Expect(f.Operator.Down()).To(Succeed())

			By("deleting the ConfigMap while nobody watches")
			Expect(f.Client.Delete(ctx, cm)).To(Succeed())
			Consistently(komega.Get(cm)).
				ShouldNot(Succeed())

			By("starting the operator again")
			Expect(f.Operator.Up()).To(Succeed())

			By("waiting for the ConfigMap to be back, holding the message")
			f.Eventually(ctx, komega.Object(samples.ConfigMapOf(sample))).
				Should(HaveField("Data", HaveKeyWithValue(demov1alpha1.MessageKey, "hello world")))
		})
	})
})
