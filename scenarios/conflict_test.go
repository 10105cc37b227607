package scenarios

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/cachelag"
)

// Conflict: a ConfigMap of the Sample's name that the Sample does not control is never touched.
//
// Lesson: the name "<name>-config" may already be taken, by a person or another tool. Overwriting
// or adopting it would destroy someone else's data. The operator checks the controller reference
// before every write, leaves a foreign ConfigMap exactly as it is, and says why: Ready=False with
// reason ConfigMapConflict, and a Warning event. A check of what the cache shows can be stale: the
// ConfigMap read may have been replaced since by someone else's of the same name. So every update
// names the uid of the ConfigMap it read, and the API server refuses it for any other.
//
// Source: beyond both sources: the article's Reconcile would overwrite any ConfigMap of that name;
// here a name already taken is left alone and reported.
//
// By hand:
//
//	kubectl create configmap taken-config --from-literal=message=mine
//	kubectl apply -f - <<< '{"apiVersion":"demo.example.com/v1alpha1","kind":"Sample","metadata":{"name":"taken"},"spec":{"message":"hello"}}'
//	kubectl get sample taken -o wide                 # READY False, REASON ConfigMapConflict
//	kubectl get configmap taken-config -o yaml       # unchanged: message mine, no ownerReferences
var _ = Describe("Sample", Label("conflict"), func() {
	Context("when a ConfigMap of its name exists that it does not control", func() {
		It("leaves that ConfigMap untouched and reports Ready=False, reason ConfigMapConflict", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)

			By("creating a ConfigMap taken-config of someone else's")
			theirs := &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: "taken-config", Namespace: f.Namespace},
				Data:       map[string]string{demov1alpha1.MessageKey: "theirs"},
			}
			Expect(f.Client.Create(ctx, theirs)).To(Succeed())
			theirsVersion := theirs.ResourceVersion

			By("creating a Sample called taken")
			sample := f.CreateSample(ctx, "taken", "hello world")

			By("waiting for the Sample to report the conflict")
			f.Eventually(ctx, komega.Object(sample)).Should(And(
				samples.HaveReady(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapConflict),
				HaveField("Status.Conditions", ContainElement(HaveField("Message", ContainSubstring("taken-config")))),
			))

			By("finding a Warning event that names the conflict")
			f.EventuallyEvent(ctx, And(
				HaveField("Type", corev1.EventTypeWarning),
				HaveField("Reason", demov1alpha1.ReasonConfigMapConflict),
				HaveField("Regarding.Name", "taken"),
			))

			By("checking that the ConfigMap was never written: same resourceVersion, same data, no owner")
			Consistently(komega.Object(theirs)).Should(And(
				HaveField("ResourceVersion", theirsVersion),
				HaveField("Data", Equal(map[string]string{demov1alpha1.MessageKey: "theirs"})),
				HaveField("OwnerReferences", BeEmpty()),
			))
		})

		// The operator's own recheck is 10 s (a unit test holds it): told to look again every
		// second, it shows the same recovery in a second.
		It("takes the name at its next recheck, once that ConfigMap is deleted", Label(tiers.NeedsInProcessOperator), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster, harness.With(samples.ConflictRecheck, recheck))
			sample, theirs := inConflict(ctx, f, "freed")

			By("deleting the ConfigMap in the way, as the condition's message says to")
			Expect(f.Client.Delete(ctx, theirs)).To(Succeed())

			By("waiting for the Sample to create its own and report Ready: within the recheck, and Converge")
			// Nothing tells the operator that the name is free (the ConfigMap in the way carries no
			// label of its, so its cache never saw it): it looks again at every recheck.
			f.Eventually(ctx, func() error {
				_, err := samples.Check(ctx, f.Client, sample)
				return err
			}).WithTimeout(recheck + harness.Converge).Should(Succeed())
		})

		It("leaves that ConfigMap in place when the Sample is deleted", Label(tiers.NeedsGarbageCollector), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample, theirs := inConflict(ctx, f, "kept")

			By("deleting the Sample in the foreground and waiting for it to be gone")
			Expect(f.Client.Delete(ctx, sample, client.PropagationPolicy("Foreground"))).To(Succeed())
			Eventually(komega.Get(sample)).
				Should(Satisfy(apierrors.IsNotFound))

			By("checking that the ConfigMap, which the Sample never owned, is still there and unchanged")
			Consistently(komega.Object(theirs)).Should(And(
				HaveField("ResourceVersion", theirs.ResourceVersion),
				HaveField("Data", HaveKeyWithValue(demov1alpha1.MessageKey, "theirs")),
			))
		})
	})

	Context("when a ConfigMap of its name names it as an owner, but not as its controller", func() {
		// Characterization: written after the check it proves, when a break that took any owner
		// reference for control passed the unit and envtest tiers (issue #53).
		It("leaves that ConfigMap untouched and reports the conflict: an owner is not a controller", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)

			By("creating a Sample called owned-only and waiting for its ConfigMap")
			sample := f.CreateSample(ctx, "owned-only", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("rewriting the ConfigMap's owner reference so that it names the Sample as a mere owner")
			Expect(samples.MergePatch(ctx, f.Client, cm, cm.Namespace, cm.Name, fmt.Sprintf(
				`{"metadata":{"ownerReferences":[{"apiVersion":"demo.example.com/v1beta1","kind":"Sample","name":%q,"uid":%q}]},"data":{"message":"theirs"}}`,
				sample.Name, sample.UID))).To(Succeed())
			theirs, theirsVersion := cm, cm.ResourceVersion

			By("changing the Sample's message, so that the operator looks at that ConfigMap again")
			f.PatchSample(ctx, sample, `{"spec":{"message":"hello again"}}`)

			By("waiting for the Sample to report the conflict")
			f.Eventually(ctx, komega.Object(sample)).
				Should(samples.HaveReady(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapConflict))

			By("checking that the ConfigMap was never written")
			expectUnwritten(theirs, theirsVersion)
		})
	})

	Context("when its ConfigMap is replaced by someone else's while the operator's cache still shows the old one", func() {
		It("refuses to write the new one, its update naming the uid it read, and reports the conflict once the cache has caught up", Label(tiers.NeedsInProcessOperator), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster, harness.WithClientConfig(cachelag.Of(configMapLag, "configmaps")))
			sample := f.CreateSample(ctx, "replaced", "hello world")
			cm := f.EventuallySynced(ctx, sample)

			By("annotating the ConfigMap, and waiting for the operator to hear of it: then its cache holds the ConfigMap, 1 s late")
			before, err := f.Operator.Read()
			Expect(err).NotTo(HaveOccurred())
			Expect(komega.Update(cm, func() { cm.Annotations = map[string]string{"example.com/touched": "by the scenario"} })()).To(Succeed())
			f.Eventually(ctx, f.Operator.Read).Should(HaveField("Reconciles", BeNumerically(">", before.Reconciles)))

			By("deleting the ConfigMap and creating someone else's of that name, then changing the Sample's message at once")
			Expect(f.Client.Delete(ctx, cm)).To(Succeed())
			theirs := &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: cm.Name, Namespace: f.Namespace},
				Data:       map[string]string{demov1alpha1.MessageKey: "theirs"},
			}
			Expect(f.Client.Create(ctx, theirs)).To(Succeed())
			theirsVersion := theirs.ResourceVersion
			f.PatchSample(ctx, sample, `{"spec":{"message":"hello again"}}`)

			By("waiting for the Sample to report the conflict, once the operator's cache shows the old ConfigMap gone")
			f.Eventually(ctx, komega.Object(sample)).
				Should(samples.HaveReady(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapConflict))

			By("checking that their ConfigMap was never written: same resourceVersion, same data, no owner")
			expectUnwritten(theirs, theirsVersion)
			Expect(theirs.OwnerReferences).To(BeEmpty())

			By("checking that no Warning called the refused update a refusal the user must act on: it named a uid gone since")
			events := &eventsv1.EventList{}
			Expect(f.Client.List(ctx, events, client.InNamespace(f.Namespace))).To(Succeed())
			Expect(events.Items).NotTo(ContainElement(HaveField("Reason", demov1alpha1.ReasonConfigMapRefused)))
		})
	})
})

// inConflict creates a ConfigMap <name>-config of someone else's, then a Sample called name, and
// waits until the Sample reports the conflict, as the first spec shows step by step.
func inConflict(ctx context.Context, f *samples.Fixture, name string) (*demov1alpha1.Sample, *corev1.ConfigMap) {
	GinkgoHelper()
	theirs := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: demov1alpha1.ConfigMapName(name), Namespace: f.Namespace},
		Data:       map[string]string{demov1alpha1.MessageKey: "theirs"},
	}
	Expect(f.Client.Create(ctx, theirs)).To(Succeed())
	sample := f.CreateSample(ctx, name, "hello world")
	f.Eventually(ctx, komega.Object(sample)).
		Should(samples.HaveReady(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapConflict))
	return sample, theirs
}

// expectUnwritten reads theirs afresh and checks that it was never written: its resourceVersion is
// still version, and it holds its owner's message alone.
func expectUnwritten(theirs *corev1.ConfigMap, version string) {
	GinkgoHelper()
	Expect(komega.Get(theirs)()).To(Succeed())
	Expect(theirs.ResourceVersion).To(Equal(version))
	Expect(theirs.Data).To(Equal(map[string]string{demov1alpha1.MessageKey: "theirs"}))
}

// recheck is how often the operator of the recovery spec looks again at a name that is taken.
const recheck = time.Second

// configMapLag is how late the operator's cache shows ConfigMaps in the spec of a replaced
// ConfigMap (its By text says 1 s: the catalogue reads By texts as literals): long enough for the
// Sample's change, which it hears of at once, to be reconciled on the stale ConfigMap; shorter than
// harness.Settle, so that a wait for what the operator hears of late never judges it settled.
const configMapLag = time.Second
