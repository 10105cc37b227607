// Package scenarios holds the operator's behaviours as executable scenarios. The same specs run on
// the envtest tier (a real kube-apiserver and etcd, the operator in this process) and on the e2e
// tier (a real cluster, the operator deployed as in production): $SCENARIOS_TIER chooses. A
// scenario whose specs take seconds even on an idle machine (a hundred objects, an operator
// restarted) is decorated SpecPriority(1): Ginkgo hands it out first, so that a parallel run does
// not end waiting on one that started last.
package scenarios

import (
	"testing"

	"github.com/onsi/ginkgo/v2"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/warm"
	"example.com/operator-demo/testing/offline/localcluster"
)

// TestScenarios runs the specs that the current tier can run: the others are left out by label. It
// needs no cluster: a dry run (the catalogue's) lists the specs and starts nothing; the suite's
// cluster starts in its SynchronizedBeforeSuite, where envtest finds its binaries.
func TestScenarios(t *testing.T) {
	tier, err := tiers.Current()
	if err != nil {
		t.Fatal(err)
	}
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = tier.LabelFilter(suiteConfig.LabelFilter)
	harness.RunScenarios(t, "Sample scenarios", suiteConfig, reporterConfig)
}

// suiteCluster is where every spec of this test process runs: one cluster for the suite, this
// project's operator the one under test. Envtest attaches to make envtest-up's warm control plane
// when one is up; the e2e tier runs on kind, or, without Docker, on a local control plane where the
// operator's binary plays its Deployment.
var suiteCluster cluster.Cluster

var _ = harness.ShareCluster(&suiteCluster, samples.Operator, tiers.Provider(map[string]cluster.Provider{
	tiers.Envtest:       warm.Start,
	tiers.ProviderKind:  e2e.Kind,
	tiers.ProviderLocal: localcluster.E2E,
}))
