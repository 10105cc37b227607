package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
)

// Correct owned drift: an edit or a deletion of the ConfigMap is undone at once.
//
// Lesson: Owns(&ConfigMap{}) watches ConfigMaps and maps each event, through the controller
// reference, to the Sample that controls it. Drift is then one event away from being corrected.
// Correcting it means rewriting only what the operator manages: keys, labels and annotations that
// others add stay. The operator caches only ConfigMaps with its managed-by label; one stripped of
// it leaves that selection, which the watch reports as a deletion, so it too is corrected at once.
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §10, after `Owns(&corev1.ConfigMap{})` and `SetControllerReference`: the second
// `kubectl edit configmap` is reverted at once.
//
// By hand:
//
//	kubectl patch configmap sample-sample-config --type merge -p '{"data":{"message":"drifted","extra":"mine"}}'
//	kubectl get configmap sample-sample-config -o jsonpath='{.data}'   # message back to hello world, extra kept
//	kubectl delete configmap sample-sample-config
//	kubectl get configmap sample-sample-config                          # back, with a new uid
//	kubectl label configmap sample-sample-config app.kubernetes.io/managed-by-
//	kubectl get configmap sample-sample-config --show-labels            # the label is back
var _ = Describe("Sample", Label("owned-drift"), func() {
	Context("when someone edits its ConfigMap", func() {
		It("restores data.message and keeps the keys it does not manage", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "edited", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("overwriting data.message and adding a key of someone else's")
			Expect(komega.Update(cm, func() {
				cm.Data[demov1alpha1.MessageKey] = "drifted"
				cm.Data["extra"] = "someone else's"
			})()).To(Succeed())

			By("waiting for data.message to be restored, with the other key kept")
			f.Eventually(ctx, komega.Object(cm)).
				Should(HaveField("Data", Equal(map[string]string{
					demov1alpha1.MessageKey: "hello world",
					"extra":                 "someone else's",
				})))
		})

		// Characterization: written after the event it proves, when the mutation sweep found that
		// no spec noticed its action left empty.
		It("records the correction as a Normal event of the Sample: reason Updated, action UpdateConfigMap", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "edited", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("overwriting data.message")
			Expect(komega.Update(cm, func() { cm.Data[demov1alpha1.MessageKey] = "drifted" })()).To(Succeed())

			By("finding the event, as kubectl describe sample edited shows it")
			f.EventuallyEvent(ctx, And(
				HaveField("Regarding.Name", "edited"),
				HaveField("Type", corev1.EventTypeNormal),
				HaveField("Reason", "Updated"),
				HaveField("Action", "UpdateConfigMap"),
				HaveField("Note", "updated ConfigMap edited-config to match the Sample's spec"),
				HaveField("Related.Namespace", f.Namespace),
				HaveField("Related.Name", "edited-config"),
				HaveField("Related.UID", cm.UID),
			))
		})
	})

	Context("when someone deletes the message key of a Sample whose message is empty", func() {
		// Characterization: written after the code, when a read of the controller against the
		// README found that no spec covers an empty message: a key read as "" when it is missing
		// would look equal to an empty message and never be put back.
		It("puts the key back, empty: an empty message is a message", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "quiet", "")
			cm := f.EventuallySynced(ctx, sample)
			Expect(cm.Data).To(HaveKeyWithValue(demov1alpha1.MessageKey, ""))

			By("deleting data.message")
			Expect(samples.MergePatch(ctx, f.Client, cm, cm.Namespace, cm.Name, `{"data":{"message":null}}`)).To(Succeed())
			Expect(cm.Data).NotTo(HaveKey(demov1alpha1.MessageKey))

			By("waiting for data.message to be back, empty")
			f.Eventually(ctx, komega.Object(cm)).Should(HaveField("Data", HaveKeyWithValue(demov1alpha1.MessageKey, "")))
		})
	})

	Context("when someone strips the managed-by label that the operator's cache selects on", func() {
		It("puts the label back and restores data.message: leaving the selection is a deletion to the watch", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "unlabelled", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("removing the label app.kubernetes.io/managed-by and overwriting data.message in one patch")
			Expect(samples.MergePatch(ctx, f.Client, cm, cm.Namespace, cm.Name,
				`{"metadata":{"labels":{"app.kubernetes.io/managed-by":null}},"data":{"message":"drifted"}}`)).To(Succeed())

			By("waiting for the label and the message to be back")
			f.Eventually(ctx, komega.Object(cm)).Should(And(
				HaveField("Labels", HaveKeyWithValue("app.kubernetes.io/managed-by", "operator-demo")),
				HaveField("Data", HaveKeyWithValue(demov1alpha1.MessageKey, "hello world")),
			))
		})
	})

	Context("when someone deletes its ConfigMap", func() {
		It("creates it again", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "deleted", "hello world")
			cm := f.EventuallySynced(ctx, sample)
			oldUID := cm.UID

			By("deleting the ConfigMap")
			Expect(f.Client.Delete(ctx, cm)).To(Succeed())

			By("waiting for a new ConfigMap of that name, holding the message")
			f.Eventually(ctx, komega.Object(samples.ConfigMapOf(sample))).Should(And(
				HaveField("UID", Not(Equal(oldUID))),
				HaveField("Data", HaveKeyWithValue(demov1alpha1.MessageKey, "hello world")),
			))
		})
	})
})
