// Package scenarios holds the operator's behaviours as executable scenarios. The same specs run on
// the envtest tier (a real kube-apiserver and etcd, the operator in this process) and on the e2e
// tier (a real cluster, the operator deployed as in production): $SCENARIOS_TIER chooses.
package scenarios

import (
	"testing"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/cluster"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/localcluster"
	"example.com/operator-demo/testing/tiers"
)

func TestScenarios(t *testing.T) {
	harness.RunScenarios(t, "Sample scenarios")
}

// suiteCluster is where every spec of this test process runs: one cluster for the suite, this
// project's operator the one under test, and, for the e2e tier without Docker, a local cluster.
var suiteCluster cluster.Cluster

var _ = harness.ShareCluster(&suiteCluster, samples.Operator, map[string]cluster.Provider{tiers.ProviderLocal: localcluster.E2E})
