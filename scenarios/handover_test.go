package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/controllers"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness"
)

// Handover: a ConfigMap that the operator wrote before server-side apply is handed over to its
// field manager, operator-demo, by the first pass after the upgrade, in one write; from then on a
// key removed from spec.data leaves it, as it does from a ConfigMap the operator created since.
//
// Lesson: server-side apply removes only what the applying manager owns alone. The release before
// it wrote with merge patches that named no field manager, so the API server recorded them under
// the program name of its User-Agent, its binary's, "manager", with operation Update. An apply
// that sets a field to the value it already holds shares it with that manager instead of taking
// it: each key the old release wrote would stay owned by "manager" for good, and a key removed
// from spec.data would never leave. So the operator first moves what "manager" owns of the
// ConfigMap into its own apply's record, as `kubectl apply --server-side` does for what
// client-side apply wrote (k8s.io/client-go/util/csaupgrade): one JSON patch of managedFields,
// which tests the resourceVersion it read. A ConfigMap with nothing of "manager"'s costs nothing.
//
// Source: beyond both sources: issue #54, the operator replaced by its next release
// (docs/upgrades.md).
//
// By hand (the operator before server-side apply deployed first, then this one):
//
//	kubectl get configmap sample-sample-config -o yaml --show-managed-fields   # manager: manager, operation: Update, before the upgrade
//	kubectl get configmap sample-sample-config -o yaml --show-managed-fields   # manager: operator-demo, operation: Apply, alone, after it
var _ = Describe("Sample", Label("handover"), func() {
	Context("when the release before server-side apply wrote its ConfigMap, and this release replaces it", func() {
		It("hands what the old release's merge patches own over to operator-demo in one write, so that a key removed from spec.data then leaves the ConfigMap", Label(tiers.NeedsInProcessOperator), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster, harness.WithControllers(mergePatchStage))

			By("running the release before server-side apply, which writes the ConfigMap with merge patches")
			sample := f.CreateSampleData(ctx, "palette", map[string]string{"message": "hello world", "colour": "blue"})
			cm := samples.ConfigMapOf(sample)
			f.Eventually(ctx, komega.Object(cm)).Should(HaveField("Data", Equal(map[string]string{"message": "hello world", "colour": "blue"})))
			Expect(cm.ManagedFields).To(ContainElement(And(HaveField("Manager", controllers.PreviousFieldManager), HaveField("Operation", metav1.ManagedFieldsOperationUpdate))))

			By("adding a key of someone else's to the ConfigMap")
			Expect(komega.Update(cm, func() { cm.Data["extra"] = "someone else's" })()).To(Succeed())

			By("replacing that release with this one, as an upgrade does")
			f.Replace()

			By("waiting for it to settle, and checking that it wrote the ConfigMap once and the status once")
			f.Eventually(ctx, komega.Object(cm)).Should(HaveField("ManagedFields", Not(ContainElement(HaveField("Manager", controllers.PreviousFieldManager)))))
			settled := f.EventuallySettled(ctx)
			Expect(settled.ByResource).To(Equal(map[string]float64{"configmaps": 1, "samples/status": 1}), "the operator's writes since the upgrade, by resource")

			By("checking that operator-demo owns what the old release wrote, and not the other key")
			Expect(appliedBy(cm.ManagedFields, controllers.FieldOwner)).To(ConsistOf(
				"data.colour",
				"data.message",
				"metadata.labels.app.kubernetes.io/managed-by",
				`metadata.ownerReferences{"uid":"`+string(sample.UID)+`"}`,
			))

			By("removing colour from spec.data")
			Expect(samples.MergePatch(ctx, f.Client, sample, sample.Namespace, sample.Name, `{"spec":{"data":{"colour":null}}}`)).To(Succeed())

			By("waiting for the ConfigMap to hold the message and the other key, without colour")
			f.Eventually(ctx, komega.Object(cm)).Should(HaveField("Data", Equal(map[string]string{
				"message": "hello world",
				"extra":   "someone else's",
			})))
			Expect(cm.ManagedFields).To(ContainElement(And(HaveField("Manager", controllers.FieldOwner), HaveField("Operation", metav1.ManagedFieldsOperationApply))))
		})
	})
})
