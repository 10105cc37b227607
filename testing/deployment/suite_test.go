// Package deployment proves what config/ promises about the operator as deployed: least
// privilege, an authenticated metrics endpoint, a Pod that meets the restricted Pod Security
// Standard, and leader election that fails over. It runs on a local cluster (make test-e2e).
package deployment

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"example.com/operator-demo/testing/harness"
)

// d is the operator deployed on a local cluster, shared by every spec of this suite.
var d *harness.LocalDeployment

func TestDeployment(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Deployment")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	root, err := harness.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	d, err = harness.StartLocalDeployment(ctx, filepath.Join(root, "reports", "deployment"), filepath.Join(root, "bin", "manager"))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(d.Stop)
})
