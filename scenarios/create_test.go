package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/scenarios/samples"
)

// Create: a new Sample gets a ConfigMap "<name>-config" holding its message.
//
// Lesson: the ConfigMap is a child of the Sample. The controller reference (controller: true,
// blockOwnerDeletion: true) is what lets the operator recognise its own ConfigMap later, lets
// Owns() map the ConfigMap's events back to the Sample, and lets the garbage collector delete it
// with the Sample. A child created without one leaks. Creating it takes one reconcile and two
// writes, its create and the status (and a Created event): the ConfigMap's own Create event is
// the operator's doing and starts no second pass.
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §10, `kubectl apply -f config/samples/demo_v1alpha1_sample.yaml`: the ConfigMap
// sample-sample-config appears, holding the message.
//
// By hand:
//
//	kubectl apply -f config/samples/demo_v1alpha1_sample.yaml
//	kubectl get configmap sample-sample-config -o yaml   # data.message: hello world, ownerReferences
//	kubectl get samples                                  # READY True
var _ = Describe("Sample", Label("create"), func() {
	Context("when it is created", func() {
		It("creates <name>-config holding spec.message, controlled by the Sample, and reports Ready", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			before := f.EventuallySettled(ctx)

			By("creating a Sample with message \"hello world\"")
			sample := f.CreateSample(ctx, "greeting", "hello world")

			By("waiting for the ConfigMap greeting-config to hold the message")
			cm := samples.ConfigMapOf(sample)
			f.Eventually(ctx, komega.Object(cm)).
				Should(HaveField("Data", HaveKeyWithValue(demov1alpha1.MessageKey, "hello world")))

			By("checking that the Sample is the ConfigMap's controller, blocking its owner's deletion")
			Expect(komega.Get(sample)()).To(Succeed())
			Expect(cm.OwnerReferences).To(ConsistOf(And(
				HaveField("APIVersion", demov1beta1.GroupVersion.String()),
				HaveField("Kind", "Sample"),
				HaveField("Name", sample.Name),
				HaveField("UID", sample.UID),
				HaveField("Controller", ptr.To(true)),
				HaveField("BlockOwnerDeletion", ptr.To(true)),
			)))

			By("checking that the Sample reports Ready for its current generation")
			f.Eventually(ctx, komega.Object(sample)).Should(And(
				samples.HaveReady(metav1.ConditionTrue, demov1alpha1.ReasonSynced),
				HaveField("Status.ConfigMapName", "greeting-config"),
			))

			By("checking that it took one reconcile and two writes, the ConfigMap's create and the status, and no more")
			// The reconcile is counted when Reconcile returns, a moment after the status it wrote
			// is visible: wait for the count, then watch it stay.
			want := And(HaveField("Reconciles", before.Reconciles+1), HaveField("Writes", before.Writes+2))
			f.Eventually(ctx, f.Operator.Read).Should(want)
			Consistently(f.Operator.Read).Should(want)
		})

		// Characterization: written after the event it proves, when the mutation sweep found that
		// no spec noticed its action left empty.
		It("records what it did as a Normal event of the Sample: reason Created, action CreateConfigMap, naming the ConfigMap", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "greeting", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("finding the event, as kubectl describe sample greeting shows it, the ConfigMap its related object")
			f.EventuallyEvent(ctx, And(
				HaveField("Regarding.Name", "greeting"),
				HaveField("Type", corev1.EventTypeNormal),
				HaveField("Reason", "Created"),
				HaveField("Action", "CreateConfigMap"),
				HaveField("Note", "created ConfigMap greeting-config"),
				HaveField("Related.Kind", "ConfigMap"),
				HaveField("Related.Namespace", f.Namespace),
				HaveField("Related.Name", "greeting-config"),
				HaveField("Related.UID", cm.UID),
			))
		})
	})
})
