// Package scenarios holds the Widget operator's behaviours, on the copied harness.
package scenarios

import (
	"testing"

	"example.org/widgets/scenarios/widgets"
	"example.org/widgets/testing/harness"
	"example.org/widgets/testing/harness/cluster"
)

func TestScenarios(t *testing.T) {
	harness.RunScenarios(t, "Widget scenarios")
}

var suiteCluster cluster.Cluster

var _ = harness.ShareCluster(&suiteCluster, widgets.Operator, cluster.StartControlPlane)
