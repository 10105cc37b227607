// Package scenarios holds the Widget operator's behaviours, on the copied harness.
package scenarios

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"example.org/widgets/scenarios/widgets"
	"example.org/widgets/testing/cluster"
	"example.org/widgets/testing/harness"
	"example.org/widgets/testing/tiers"
)

var suiteCluster cluster.Cluster

func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	harness.SetDefaults()
	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.LabelFilter = tiers.LabelFilter(suiteConfig.LabelFilter)
	RunSpecs(t, "Widget scenarios", suiteConfig, reporterConfig)
}

var _ = SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
	started, attachment, err := cluster.Start(ctx, widgets.Operator, nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(started.Stop)
	if attachment == nil {
		suiteCluster = started
	}
	return attachment
}, func(attachment []byte) {
	if suiteCluster == nil {
		var err error
		suiteCluster, err = cluster.Attach(attachment, widgets.Operator)
		Expect(err).NotTo(HaveOccurred())
	}
})
