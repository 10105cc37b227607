package upgrade

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/api/conditions"
	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/offline/localcluster"
)

// Interim rollback: from this release back to the interim release, which serves v1beta1 while it
// still stores v1alpha1, with no migration: this release stopped, what it applied handed back, and
// the interim release's config/default. The API server takes its CRD; it keeps each ConfigMap,
// the same object, in sync, and the garbage collector collects the ConfigMap of a Sample deleted;
// an upgrade again then takes back what it wrote meanwhile.
//
// Lesson: the cheap rollback is to a release that still serves the version stored. The interim
// release serves v1beta1 and converts it, so its CRD is taken while storedVersions names v1beta1,
// and every Sample reads as before: none of the migration back that Rollback needs (store
// v1alpha1, rewrite, storedVersions). Only the field manager must go back: the interim release
// writes with merge patches, as "manager", and this release takes over what "manager" owns only
// where it has never applied (Handover). So before the interim release starts, rollback.sh
// hand-back gives what this release applied back to "manager" (and names the owners in v1alpha1,
// which the interim release serves too). That is why a storage version is best flipped in a
// release of its own (docs/api-versions.md): the release before the flip is a rollback target.
//
// Red first: with the interim release deployed over this one and no hand-back, it wrote an empty
// message into the ConfigMap of a Sample whose data holds none (its write, "manager"'s), and the
// upgrade again left it there: this release had applied the ConfigMap before, so it took nothing
// over. The wait failed once the operator settled without the ConfigMap holding its data alone.
//
// Source: beyond both sources: issue #54, a rollback to a release that serves both versions
// (docs/upgrades.md).
//
// By hand (this release deployed, the interim release make previous-release's worktree,
// bin/previous/<commit>):
//
//	kubectl -n operator-demo-system scale deployment operator-demo-controller-manager --replicas 0
//	config/rollback/rollback.sh hand-back
//	kubectl apply -k bin/previous/<commit>/config/default   # its CRD, taken: it serves v1beta1
//	kubectl get samples.v1alpha1.demo.example.com -w   # Ready: "… holds spec.message", the interim release's words
var _ = Describe("The operator", Label("interim-rollback", tiers.NeedsPreviousRelease), Ordered, func() {
	const namespace = "interim-rollback"
	// d is the cluster: the release before, this release, the interim release, then this release
	// again. kept was written under the release before; keys, under this release, has data that
	// holds no message. configMaps are theirs, as this release first synced them.
	var d *localcluster.LocalDeployment
	var f *samples.Fixture
	var kept *demov1alpha1.Sample
	var keys *demov1beta1.Sample
	var configMaps []*corev1.ConfigMap

	BeforeAll(func(ctx SpecContext) {
		d = startPrevious(ctx, namespace)
		kept = samples.New(namespace, "kept", "hello world")
		Expect(d.Client.Create(ctx, kept)).To(Succeed())
		fixture(d, namespace).EventuallySynced(ctx, kept)

		By("upgrading to this release, and writing a Sample whose data holds no message")
		f = deploy(ctx, d, current, samples.Operator, namespace)
		keys = samples.NewData(namespace, "keys", map[string]string{"greeting": "hi"})
		Expect(d.Client.Create(ctx, keys)).To(Succeed())
		configMaps = []*corev1.ConfigMap{f.EventuallySynced(ctx, kept), f.EventuallySynced(ctx, keys)}
	})

	It("rolls back to the interim release with no migration: each ConfigMap kept and in sync, Ready in its words, its writes each status and one ConfigMap", func(ctx SpecContext) {
		By("stopping this release, and handing what it applied back to the interim release's field manager: rollback.sh hand-back")
		Expect(d.Operator.Down()).To(Succeed())
		rollback(ctx, d, "hand-back")

		By("deploying the interim release: its CRD, which the API server takes while storedVersions names v1beta1, its config/default, its binary")
		f = deploy(ctx, d, interim, samples.Interim, namespace)
		Expect(storedVersions(ctx, d.Client)).To(ConsistOf("v1alpha1", "v1beta1"))

		By("waiting for each Sample's Ready in the interim release's words, and a message, empty, in the ConfigMap of the Sample whose data holds none")
		cm := samples.ConfigMapOf(keys)
		f.Eventually(ctx, func(g Gomega) {
			for _, name := range []string{kept.Name, keys.Name} {
				sample := &demov1alpha1.Sample{}
				g.Expect(d.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, sample)).To(Succeed())
				g.Expect(meta.FindStatusCondition(sample.Status.Conditions, conditions.Ready)).To(And(
					HaveField("Status", metav1.ConditionTrue), HaveField("Message", HaveSuffix("holds spec.message"))), "Sample %s's Ready", name)
			}
			g.Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm)).To(Succeed())
			g.Expect(cm.Data).To(Equal(map[string]string{"greeting": "hi", demov1alpha1.MessageKey: ""}), "ConfigMap %s", cm.Name)
		}).Should(Succeed())

		By("counting its writes once it settles: each status once, and that ConfigMap; and checking that each ConfigMap is the one this release synced")
		settled := f.EventuallySettled(ctx)
		Expect(settled.ByResource).To(Equal(map[string]float64{"configmaps": 1, "samples/status": float64(len(configMaps))}), "the interim release's writes since the rollback, by resource")
		for _, cm := range configMaps {
			now := &corev1.ConfigMap{}
			Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(cm), now)).To(Succeed())
			Expect(now.UID).To(Equal(cm.UID), "ConfigMap %s was replaced", cm.Name)
		}

		By("changing a Sample's message through v1alpha1")
		sample := kept.DeepCopy()
		Expect(samples.MergePatch(ctx, d.Client, sample, namespace, sample.Name, `{"spec":{"message":"rolled back"}}`)).To(Succeed())
		f.EventuallySynced(ctx, sample)
	})

	It("collects the ConfigMap of a Sample deleted under the interim release", func(ctx SpecContext) {
		gone := samples.New(namespace, "gone", "hello world")
		Expect(d.Client.Create(ctx, gone)).To(Succeed())
		f.EventuallySynced(ctx, gone)

		By("deleting it, and waiting for the garbage collector to delete its ConfigMap")
		Expect(d.Client.Delete(ctx, gone)).To(Succeed())
		cm := samples.ConfigMapOf(gone)
		Eventually(ctx, func() error {
			if err := d.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
				return err
			}
			return fmt.Errorf("ConfigMap %s is still there, its owner %v", cm.Name, cm.OwnerReferences)
		}).Should(Satisfy(apierrors.IsNotFound))
	})

	It("upgrades again after it: the key the interim release wrote, which spec.data does not hold, leaves the ConfigMap", func(ctx SpecContext) {
		By("upgrading to this release again")
		f = deploy(ctx, d, current, samples.Operator, namespace)

		By("waiting for the ConfigMap of the Sample whose data holds no message to hold its data alone")
		cm := samples.ConfigMapOf(keys)
		f.Eventually(ctx, func(g Gomega) map[string]string {
			g.Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm)).To(Succeed())
			return cm.Data
		}).Should(Equal(map[string]string{"greeting": "hi"}))
	})
})
