package harness

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
)

// RunScenarios runs a suite of scenarios, with the suite's defaults set (SetDefaults); args are
// RunSpecs's (a SuiteConfig whose LabelFilter leaves out what a tier cannot run, say).
func RunScenarios(t *testing.T, description string, args ...any) bool {
	RegisterFailHandler(Fail)
	SetDefaults()
	return RunSpecs(t, description, args...)
}

// ShareCluster is the suite's SynchronizedBeforeSuite. The first test process starts the cluster
// (with start; nil: cluster.StartControlPlane) with subject as the operator under test, and stops
// it once every process has finished; every process attaches to it and sets *into and komega's
// client. With `ginkgo -p` the processes share one control plane.
//
//	var suiteCluster cluster.Cluster
//	var _ = harness.ShareCluster(&suiteCluster, myoperator.Subject, nil)
func ShareCluster(into *cluster.Cluster, subject operator.Subject, start cluster.Provider) bool {
	if start == nil {
		start = cluster.StartControlPlane
	}
	return SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
		started, kubeconfig, err := start(ctx, subject)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(started.Stop) // once every process has finished
		if kubeconfig == nil {
			*into = *started
		}
		return kubeconfig
	}, func(kubeconfig []byte) {
		if into.Client == nil {
			attached, err := cluster.Attach(kubeconfig, subject)
			Expect(err).NotTo(HaveOccurred())
			*into = *attached
		}
		komega.SetClient(into.Client)
	})
}
