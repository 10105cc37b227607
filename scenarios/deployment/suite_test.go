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
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/localcluster"
)

// d is the operator deployed on a local cluster, shared by every spec of this suite.
var d *localcluster.LocalDeployment

func TestDeployment(t *testing.T) {
	RegisterFailHandler(Fail)
	harness.SetDefaults()
	RunSpecs(t, "Deployment")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	root, err := localcluster.Root()
	Expect(err).NotTo(HaveOccurred())
	d, err = localcluster.StartDeployment(ctx, filepath.Join(root, "reports", "deployment"), filepath.Join(root, "bin", "manager"), samples.Operator)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(d.Stop)
})

// syncedConfigMap creates a Sample called name in the default namespace and returns its
// ConfigMap, with the ConfigMap's key, once the operator has synced them.
func syncedConfigMap(ctx context.Context, name string) (*corev1.ConfigMap, client.ObjectKey) {
	GinkgoHelper()
	sample := samples.New("default", name, "hello world")
	Expect(d.Client.Create(ctx, sample)).To(Succeed())
	var cm *corev1.ConfigMap
	Eventually(ctx, func() (err error) {
		cm, err = samples.Check(ctx, d.Client, sample)
		return err
	}).Should(Succeed())
	return cm, client.ObjectKeyFromObject(cm)
}
