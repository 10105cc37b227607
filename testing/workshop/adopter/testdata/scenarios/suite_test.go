// Package scenarios holds the Widget operator's behaviours, on the harness, a module it requires.
package scenarios

import (
	"testing"

	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/cluster"

	"example.org/widgets/scenarios/widgets"
)

func TestScenarios(t *testing.T) {
	harness.RunScenarios(t, "Widget scenarios")
}

var suiteCluster cluster.Cluster

var _ = harness.ShareCluster(&suiteCluster, widgets.Operator, cluster.StartControlPlane)
