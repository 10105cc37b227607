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
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
