// Package scenarios holds the operator's behaviours as executable scenarios. The same specs run on
// the envtest tier (a real kube-apiserver and etcd, the operator in this process) and on the e2e
// tier (a real cluster, the operator deployed as in production): $SCENARIOS_TIER chooses.
package scenarios

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/cluster"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/localcluster"
	"example.com/operator-demo/testing/tiers"
)

// suiteCluster is where every spec of this test process runs.
var suiteCluster cluster.Cluster

func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	harness.SetDefaults()
	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.LabelFilter = tiers.LabelFilter(suiteConfig.LabelFilter)
	RunSpecs(t, "Sample scenarios", suiteConfig, reporterConfig)
}

// The first test process starts the cluster, with this project's operator as the one under test
// (and, for the e2e tier without Docker, a local cluster); every process attaches to it.
// With `ginkgo -p` the envtest tier's processes share one control plane, each spec in a
// namespace and with an operator of its own.
var _ = SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
	started, attachment, err := cluster.Start(ctx, samples.Operator, map[string]cluster.Provider{tiers.ProviderLocal: localcluster.E2E})
	Expect(err).NotTo(HaveOccurred())
	// Runs once every process has finished, and after their own cleanups.
	DeferCleanup(started.Stop)
	if attachment == nil {
		suiteCluster = started
	}
	return attachment
}, func(attachment []byte) {
	if suiteCluster == nil {
		var err error
		suiteCluster, err = cluster.Attach(attachment, samples.Operator)
		Expect(err).NotTo(HaveOccurred())
	}
	komega.SetClient(suiteCluster.Client())
})
