package scenarios

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness"
)

// Conflict: a ConfigMap of the Sample's name that the Sample does not control is never touched.
//
// Lesson: the name "<name>-config" may already be taken, by a person or another tool. Overwriting
// or adopting it would destroy someone else's data. The operator checks the controller reference
// before every write, leaves a foreign ConfigMap exactly as it is, and says why: Ready=False with
// reason ConfigMapConflict, and a Warning event.
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

// recheck is how often the operator of the recovery spec looks again at a name that is taken.
const recheck = time.Second
