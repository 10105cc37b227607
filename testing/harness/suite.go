package harness

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/tiers"
)

// RunScenarios runs a suite of scenarios: the suite's defaults set (SetDefaults), and the specs
// the current tier cannot run left out by label (Tier.LabelFilter).
func RunScenarios(t *testing.T, description string) bool {
	RegisterFailHandler(Fail)
	SetDefaults()
	tier, err := tiers.Current()
	if err != nil {
		t.Fatal(err)
	}
	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.LabelFilter = tier.LabelFilter(suiteConfig.LabelFilter)
	return RunSpecs(t, description, suiteConfig, reporterConfig)
}

// Slow marks a scenario whose specs take seconds even on an idle machine (a hundred objects, an
// operator restarted): Ginkgo hands them out first, so that a parallel run does not end waiting
// on one that started last.
//
//	var _ = Describe("Widget", Label("bulk"), harness.Slow, func() { ... })
const Slow = SpecPriority(1)

// ShareCluster is the suite's SynchronizedBeforeSuite. The first test process starts the cluster
// of the current tier (cluster.Start, from providers) with subject as the operator under test,
// and stops it once every process has finished; every process attaches to it and sets *into and
// komega's client. With `ginkgo -p` the processes share one control plane.
//
//	var suiteCluster cluster.Cluster
//	var _ = harness.ShareCluster(&suiteCluster, myoperator.Subject, nil)
func ShareCluster(into *cluster.Cluster, subject operator.Subject, providers map[string]cluster.Provider) bool {
	return SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
		started, attachment, err := cluster.Start(ctx, subject, providers)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(started.Stop) // once every process has finished
		if attachment == nil {
			*into = started
		}
		return attachment
	}, func(attachment []byte) {
		if *into == nil {
			var err error
			*into, err = cluster.Attach(attachment, subject)
			Expect(err).NotTo(HaveOccurred())
		}
		komega.SetClient((*into).Client())
	})
}
