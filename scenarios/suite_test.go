// Package scenarios holds the operator's behaviours as executable scenarios. The same specs run on
// the envtest tier (a real kube-apiserver and etcd, the operator in this process) and on the e2e
// tier (a real cluster, the operator deployed as in production): $SCENARIOS_TIER chooses.
package scenarios

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/testing/harness"
)

// cluster is where every spec of this suite runs; one per test process.
var cluster harness.Cluster

func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.LabelFilter = harness.LabelFilter(suiteConfig.LabelFilter)
	RunSpecs(t, "Sample scenarios", suiteConfig, reporterConfig)
}

var _ = BeforeSuite(func(ctx SpecContext) {
	var err error
	cluster, err = harness.Connect(ctx)
	Expect(err).NotTo(HaveOccurred())
	komega.SetClient(cluster.Client())
	// DeferCleanup runs after every spec's own cleanup, so every operator has stopped by then.
	DeferCleanup(cluster.Stop)
})
