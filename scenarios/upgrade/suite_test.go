// Package upgrade proves the operator's upgrade from the release before it, built from this
// repository's own history (make previous-release: PREVIOUS_RELEASE, checked out into a worktree),
// an upgrade that fails half-way, the rollback to that release, and the rollback to the interim
// release (INTERIM_RELEASE, which serves v1beta1 while it stores v1alpha1), each on a local
// control plane of its own: the release before deployed first, with its own config/, then
// replaced by this one's (and, for a rollback, by the older release's again). It runs on the e2e
// tier where Docker is absent (make test-e2e-local, after the scenarios): $E2E_PREVIOUS_RELEASE
// and $E2E_INTERIM_RELEASE name the worktrees, whose managers are built in their bin/;
// $E2E_OPERATOR_BINARY is this release's.
package upgrade

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/offline/localcluster"
)

// previous, interim and current are the releases: the one before, and the one that serves
// v1beta1 while it stores v1alpha1, as make previous-release built them, and this one.
var previous, interim, current localcluster.Release

func TestUpgrade(t *testing.T) {
	RegisterFailHandler(Fail)
	harness.SetDefaults()
	RunSpecs(t, "Upgrade")
}

var _ = BeforeSuite(func() {
	worktree := os.Getenv("E2E_PREVIOUS_RELEASE")
	Expect(worktree).NotTo(BeEmpty(), "E2E_PREVIOUS_RELEASE names no worktree of the release before: run make test-e2e-local, which runs make previous-release")
	previous = localcluster.Release{Root: worktree, Binary: filepath.Join(worktree, "bin", "manager")}
	worktree = os.Getenv("E2E_INTERIM_RELEASE")
	Expect(worktree).NotTo(BeEmpty(), "E2E_INTERIM_RELEASE names no worktree of the release that serves v1beta1 while it stores v1alpha1: run make test-e2e-local, which runs make previous-release")
	interim = localcluster.Release{Root: worktree, Binary: filepath.Join(worktree, "bin", "manager")}
	current = localcluster.Release{Binary: os.Getenv("E2E_OPERATOR_BINARY")} // the working tree's
})

// startPrevious starts a local control plane for the container it is called in, in
// reports/e2e-upgrade/<namespace>, deploys the release before into it, with its own CRD and
// config/default, and creates namespace there. The container's end stops it. A scenario's own:
// each changes the CRD, which is the whole cluster's, and Ginkgo runs the scenarios in any order.
func startPrevious(ctx context.Context, namespace string) *localcluster.LocalDeployment {
	GinkgoHelper()
	root, err := localcluster.Root()
	Expect(err).NotTo(HaveOccurred())
	By("deploying the release before, with its own CRD and config/default")
	d, err := localcluster.StartRelease(ctx, filepath.Join(root, "reports", "e2e-upgrade", namespace), previous, samples.Previous)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(d.Stop)
	Expect(d.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})).To(Succeed())
	return d
}

// fixture is the harness's waits on namespace and the operator d runs now: a new one each time a
// release is deployed, since each deploy starts another operator.
func fixture(d *localcluster.LocalDeployment, namespace string) *samples.Fixture {
	return &samples.Fixture{Fixture: &harness.Fixture{Namespace: namespace, Client: d.Client, Operator: d.Operator}}
}

// deploy replaces the release d runs with release, which runs subject, as an upgrade or a
// rollback's last step does: its CRDs, then its config/default and its binary. It returns the
// waits on namespace and that release's operator.
func deploy(ctx context.Context, d *localcluster.LocalDeployment, release localcluster.Release, subject operator.Subject, namespace string) *samples.Fixture {
	GinkgoHelper()
	Expect(d.ReplaceCRDs(release, subject)).To(Succeed())
	Expect(d.Deploy(ctx, release, subject)).To(Succeed())
	return fixture(d, namespace)
}

// upgraded is what both rollbacks start from: the release before deployed and kept converged
// under it, then this release deployed and keys written under it, whose data holds no message. d
// is the cluster, f the waits on namespace and the operator running now; configMaps are kept's and
// keys', as this release first synced them (their uids, their names).
type upgraded struct {
	namespace  string
	d          *localcluster.LocalDeployment
	f          *samples.Fixture
	kept       *demov1alpha1.Sample
	keys       *demov1beta1.Sample
	configMaps []*corev1.ConfigMap
}

// startUpgraded starts the release before in namespace (startPrevious), and upgrades it as a
// rollback's spec finds it.
func startUpgraded(ctx context.Context, namespace string) *upgraded {
	GinkgoHelper()
	u := &upgraded{namespace: namespace, d: startPrevious(ctx, namespace)}
	u.kept = samples.New(namespace, "kept", "hello world")
	Expect(u.d.Client.Create(ctx, u.kept)).To(Succeed())
	fixture(u.d, namespace).EventuallySynced(ctx, u.kept)

	By("upgrading to this release, and writing a Sample whose data holds no message")
	u.f = deploy(ctx, u.d, current, samples.Operator, namespace)
	u.keys = samples.NewData(namespace, "keys", map[string]string{"greeting": "hi"})
	Expect(u.d.Client.Create(ctx, u.keys)).To(Succeed())
	u.configMaps = []*corev1.ConfigMap{u.f.EventuallySynced(ctx, u.kept), u.f.EventuallySynced(ctx, u.keys)}
	return u
}

// expectOlderConverged waits for an older release, just deployed, to converge: it speaks v1alpha1
// and writes with merge patches, so each Sample's Ready is True in its words ("… holds
// spec.message"), and it writes the message, empty, into the ConfigMap of keys, whose data holds
// none. Once it settles, its writes are each status once and that ConfigMap, and each ConfigMap is
// the one this release first synced.
func (u *upgraded) expectOlderConverged(ctx context.Context) {
	GinkgoHelper()
	By("waiting for it to converge: each Sample's Ready in its words, and a message, empty, in the ConfigMap of the Sample whose data holds none")
	cm := samples.ConfigMapOf(u.keys)
	u.f.Eventually(ctx, func(g Gomega) {
		for _, name := range []string{u.kept.Name, u.keys.Name} {
			sample := &demov1alpha1.Sample{}
			g.Expect(u.d.Client.Get(ctx, client.ObjectKey{Namespace: u.namespace, Name: name}, sample)).To(Succeed())
			g.Expect(meta.FindStatusCondition(sample.Status.Conditions, conditions.Ready)).To(And(
				HaveField("Status", metav1.ConditionTrue), HaveField("Message", HaveSuffix("holds spec.message"))), "Sample %s's Ready", name)
		}
		g.Expect(u.d.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm)).To(Succeed())
		g.Expect(cm.Data).To(Equal(map[string]string{"greeting": "hi", demov1alpha1.MessageKey: ""}), "ConfigMap %s", cm.Name)
	}).Should(Succeed())

	By("counting its writes once it settles, each status once and that ConfigMap, and checking that each ConfigMap is the one this release first synced")
	settled := u.f.EventuallySettled(ctx)
	Expect(settled.ByResource).To(Equal(map[string]float64{"configmaps": 1, "samples/status": float64(len(u.configMaps))}), "the older release's writes since the rollback, by resource")
	for _, cm := range u.configMaps {
		now := &corev1.ConfigMap{}
		Expect(u.d.Client.Get(ctx, client.ObjectKeyFromObject(cm), now)).To(Succeed())
		Expect(now.UID).To(Equal(cm.UID), "ConfigMap %s was replaced", cm.Name)
	}
}

// expectSyncedAndCollected changes kept's message through v1alpha1 and waits for its ConfigMap to
// hold it; then deletes kept, and waits for the garbage collector to delete its ConfigMap.
func (u *upgraded) expectSyncedAndCollected(ctx context.Context) {
	GinkgoHelper()
	sample := u.kept.DeepCopy()
	By("changing a Sample's message through v1alpha1")
	Expect(samples.MergePatch(ctx, u.d.Client, sample, u.namespace, sample.Name, `{"spec":{"message":"rolled back"}}`)).To(Succeed())
	u.f.EventuallySynced(ctx, sample)

	By("deleting it, and waiting for the garbage collector to delete its ConfigMap")
	Expect(u.d.Client.Delete(ctx, sample)).To(Succeed())
	cm := samples.ConfigMapOf(sample)
	Eventually(ctx, func() error {
		if err := u.d.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
			return err
		}
		return fmt.Errorf("ConfigMap %s is still there, its owner %v", cm.Name, cm.OwnerReferences)
	}).Should(Satisfy(apierrors.IsNotFound))
}

// upgradeAgain deploys this release again, and waits for the ConfigMap of keys to hold its data
// alone: the empty message the older release wrote is gone.
func (u *upgraded) upgradeAgain(ctx context.Context) {
	GinkgoHelper()
	By("upgrading to this release again")
	u.f = deploy(ctx, u.d, current, samples.Operator, u.namespace)

	By("waiting for the ConfigMap of the Sample whose data holds no message to hold its data alone: the empty message the older release wrote is gone")
	cm := samples.ConfigMapOf(u.keys)
	u.f.Eventually(ctx, func(g Gomega) map[string]string {
		g.Expect(u.d.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm)).To(Succeed())
		return cm.Data
	}).Should(Equal(map[string]string{"greeting": "hi"}))
}
