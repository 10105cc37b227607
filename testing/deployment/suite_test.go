// Package deployment proves what config/ promises about the operator as deployed: least
// privilege, an authenticated metrics endpoint, a Pod that meets the restricted Pod Security
// Standard, and leader election that fails over. It runs on a local cluster (make test-e2e).
package deployment

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/harness"
)

// d is the operator deployed on a local cluster, shared by every spec of this suite.
var d *harness.LocalDeployment

func TestDeployment(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Deployment")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	root, err := controlplane.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	d, err = harness.StartLocalDeployment(ctx, filepath.Join(root, "reports", "deployment"), filepath.Join(root, "bin", "manager"))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(d.Stop)
})

// syncedConfigMap creates a Sample called name in the default namespace and returns its
// ConfigMap, once the operator has created it, with the ConfigMap's key.
func syncedConfigMap(ctx context.Context, name string) (*corev1.ConfigMap, client.ObjectKey) {
	GinkgoHelper()
	sample := &demov1alpha1.Sample{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       demov1alpha1.SampleSpec{Message: "hello world"},
	}
	Expect(d.Client.Create(ctx, sample)).To(Succeed())
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: "default", Name: demov1alpha1.ConfigMapName(name)}
	Eventually(func(g Gomega) {
		g.Expect(d.Client.Get(ctx, key, cm)).To(Succeed())
	}).WithContext(ctx).WithTimeout(harness.Converge).WithPolling(harness.Poll).Should(Succeed())
	return cm, key
}
