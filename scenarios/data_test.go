package scenarios

import (
	"context"
	"maps"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/controllers"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/operator"
)

// Data: a v1beta1 Sample's ConfigMap holds every key of spec.data; a key removed from spec.data
// leaves the ConfigMap, while a key someone else wrote there stays.
//
// Lesson: to remove what it no longer wants, an operator must know what it wrote before. A merge
// patch or an update of the keys it wants only ever adds and changes: a key it put there once
// looks like anybody's key, so it stays for good. Server-side apply keeps that record on the
// object: the operator sends the whole of what it wants as its field manager (operator-demo), and
// the API server removes what that manager set before and no longer names, leaving every field
// that others own as they wrote it.
//
// Source: beyond both sources: issue #53, the Sample's second version and server-side apply
// (docs/api-versions.md); the Kubernetes Operator lecture notes' "API version bumped (if needed)".
//
// By hand (v1beta1 needs the operator's conversion webhook: `make deploy`, docs/api-versions.md;
// the stage before server-side apply, a merge patch of the keys it wants, is built in this file,
// `mergePatchStage`, and runs in-process only):
//
//	kubectl patch samples.v1beta1.demo.example.com sample-sample --type merge -p '{"spec":{"data":{"colour":"blue"}}}'
//	kubectl get configmap sample-sample-config -o jsonpath='{.data}'   # {"colour":"blue","message":"hello world"}
//	kubectl patch configmap sample-sample-config --type merge -p '{"data":{"extra":"mine"}}'
//	kubectl patch samples.v1beta1.demo.example.com sample-sample --type merge -p '{"spec":{"data":{"colour":null}}}'
//	kubectl get configmap sample-sample-config -o jsonpath='{.data}'   # {"extra":"mine","message":"hello world"}
var _ = Describe("Sample", Label("data"), func() {
	Context("when spec.data holds several keys", func() {
		It("keeps each of them in the ConfigMap, and no other", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)

			By("creating a v1beta1 Sample whose spec.data holds a message and a colour")
			sample := f.CreateSampleData(ctx, "palette", map[string]string{"message": "hello world", "colour": "blue"})

			By("waiting for the ConfigMap to hold both keys, and only those")
			cm := f.EventuallySynced(ctx, sample)
			Expect(cm.Data).To(Equal(map[string]string{"message": "hello world", "colour": "blue"}))
		})
	})

	Context("when a key is removed from spec.data", func() {
		It("removes it from the ConfigMap, and keeps the key someone else added", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSampleData(ctx, "palette", map[string]string{"message": "hello world", "colour": "blue"})
			cm := f.EventuallySynced(ctx, sample)

			By("adding a key of someone else's to the ConfigMap")
			Expect(komega.Update(cm, func() { cm.Data["extra"] = "someone else's" })()).To(Succeed())

			By("removing colour from spec.data")
			Expect(samples.MergePatch(ctx, f.Client, sample, sample.Namespace, sample.Name, `{"spec":{"data":{"colour":null}}}`)).To(Succeed())

			By("waiting for the ConfigMap to hold the message and the other key, without colour")
			f.Eventually(ctx, komega.Object(cm)).Should(HaveField("Data", Equal(map[string]string{
				"message": "hello world",
				"extra":   "someone else's",
			})))
		})
	})

	Context("when the operator writes the keys it wants with a JSON merge patch (the stage before server-side apply)", func() {
		// Characterization: written after the write path it contrasts with, when the move to
		// server-side apply needed a reader to see why: this stage is built here, in the scenario's
		// own code, as Ignore unwatched drift builds the article's first stage.
		It("leaves a key removed from spec.data in the ConfigMap for good: a merge patch cannot tell its own keys from others'", Label(tiers.NeedsInProcessOperator, "characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster, harness.WithControllers(mergePatchStage))
			sample := f.CreateSampleData(ctx, "palette", map[string]string{"message": "hello world", "colour": "blue"})
			cm := samples.ConfigMapOf(sample)
			f.Eventually(ctx, komega.Object(cm)).Should(HaveField("Data", Equal(map[string]string{"message": "hello world", "colour": "blue"})))

			By("removing colour from spec.data, and waiting for the operator to reconcile the Sample")
			before, err := f.Operator.Read()
			Expect(err).NotTo(HaveOccurred())
			Expect(samples.MergePatch(ctx, f.Client, sample, sample.Namespace, sample.Name, `{"spec":{"data":{"colour":null}}}`)).To(Succeed())
			f.Eventually(ctx, f.Operator.Read).Should(HaveField("Reconciles", BeNumerically(">", before.Reconciles)))

			By("checking that colour stays in the ConfigMap")
			Consistently(komega.Object(cm)).Should(HaveField("Data", HaveKeyWithValue("colour", "blue")))
		})
	})
})

// mergePatchStage wires a Sample reconciler that writes as the operator did before server-side
// apply: the keys of spec.data laid over what the ConfigMap holds, sent as a JSON merge patch of
// the difference (controllerutil.CreateOrPatch), under the field manager that its binary's name
// gave it (controllers.PreviousFieldManager). It writes no status. The production write path is
// SampleReconciler.syncConfigMap.
func mergePatchStage(mgr ctrl.Manager, _ operator.Settings) error {
	c := client.WithFieldOwner(mgr.GetClient(), controllers.PreviousFieldManager)
	return ctrl.NewControllerManagedBy(mgr).
		Named(controllers.ControllerName).
		For(&demov1beta1.Sample{}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			sample := &demov1beta1.Sample{}
			if err := c.Get(ctx, req.NamespacedName, sample); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			cm := samples.ConfigMapOf(sample)
			_, err := controllerutil.CreateOrPatch(ctx, c, cm, func() error {
				cm.Labels = map[string]string{controllers.ManagedByLabel: controllers.ManagedByValue}
				if cm.Data == nil {
					cm.Data = map[string]string{}
				}
				maps.Copy(cm.Data, sample.Spec.Data)
				return controllerutil.SetControllerReference(sample, cm, mgr.GetScheme())
			})
			return reconcile.Result{}, err
		}))
}
