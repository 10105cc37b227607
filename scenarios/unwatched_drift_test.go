package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/controllers"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/operator"
)

// Ignore unwatched drift: an operator that does not watch ConfigMaps does not see them change.
//
// Lesson: a controller only reconciles when an event it watches arrives. Wired as in the article's
// first stage, For(&Sample{}) alone, an edit of the ConfigMap starts nothing: the drift
// stays until the Sample itself changes. Every kind an operator manages must be watched, which
// Owns(&ConfigMap{}) does (see "correct owned drift").
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §10, the first `kubectl edit configmap sample-sample-config` (message:
// fixed_directly): nothing happens, the controller does not watch ConfigMaps.
//
// By hand: the operator ships the finished wiring only; this scenario builds the first stage itself
// (`firstStage`, at the end of scenarios/unwatched_drift_test.go) and runs it in-process. On
// `make demo KEEP=1`, the finished operator puts the message back at once instead:
//
//	kubectl patch configmap sample-sample-config --type merge -p '{"data":{"message":"drifted"}}'
//	kubectl get configmap sample-sample-config -o jsonpath='{.data.message}'   # hello world again
var _ = Describe("Sample", Label("unwatched-drift", tiers.NeedsInProcessOperator), SpecPriority(1), func() {
	Context("when the operator does not watch ConfigMaps (the article's first stage)", func() {
		It("leaves a direct edit of the ConfigMap in place until the Sample changes", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster, harness.WithControllers(firstStage))
			sample := f.CreateSample(ctx, "unwatched", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("editing data.message of the ConfigMap directly")
			Expect(komega.Update(cm, func() { cm.Data[demov1alpha1.MessageKey] = "drifted" })()).To(Succeed())

			By("checking that the edit stays: nothing tells the operator about it")
			Consistently(komega.Object(cm)).
				Should(HaveField("Data", HaveKeyWithValue(demov1alpha1.MessageKey, "drifted")))

			By("changing the Sample, which the operator does watch")
			Expect(komega.Update(sample, func() { sample.Spec.Message = "hello again" })()).To(Succeed())

			By("waiting for the ConfigMap to be corrected on that reconcile")
			f.Eventually(ctx, komega.Object(cm)).
				Should(HaveField("Data", HaveKeyWithValue(demov1alpha1.MessageKey, "hello again")))
		})
	})
})

// firstStage wires the Sample reconciler as the article's first stage does: For(&Sample{}) alone,
// with no Owns(&ConfigMap{}). The production wiring is SampleReconciler.SetupWithManager.
func firstStage(mgr ctrl.Manager, _ operator.Settings) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(controllers.ControllerName).
		For(&demov1beta1.Sample{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(controllers.NewSampleReconciler(mgr))
}
