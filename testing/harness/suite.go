// Package harness is what the Ginkgo suites stand on, the only package of the harness that
// imports Ginkgo and Gomega: the suite (its cluster, the timeouts Gomega defaults to), a Fixture
// per spec (a namespace and an operator of its own, both gone when the spec ends), and the waits
// every scenario shares.
package harness

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
)

// How long the specs wait: SetDefaults makes Converge and AtRest the defaults of Eventually and
// Consistently; a spec that needs another names it, with the reason beside it.
const (
	// Converge bounds how long the operator may take to act on a change.
	Converge = 10 * time.Second
	// Collect bounds how long the garbage collector may take to delete what an object owned, on a
	// cluster still busy with the previous spec's objects.
	Collect = 30 * time.Second
	// AtRest is how long a spec watches for something that must not happen. What it catches (a
	// reconcile loop, a write on a no-op pass) shows within milliseconds: a status loop runs
	// hundreds of reconciles a second, and a spec watches only once the reconcile under test
	// has been seen.
	AtRest = 500 * time.Millisecond
	// Settle is how long an operator has done nothing (no reconcile, no write) before a wait for
	// what it does (Fixture.Eventually) takes it as settled and fails at once. A watch event
	// arrives within milliseconds; a false "settled" would fail a green spec: a wide margin.
	Settle = 1500 * time.Millisecond
	// Poll is how often Eventually and Consistently look.
	Poll = 100 * time.Millisecond
)

// SetDefaults makes Eventually wait up to Converge and Consistently watch for AtRest, both
// looking every Poll, also when given the spec's context (Gomega's default would be the
// context's timeout alone). It writes controller-runtime's log to GinkgoWriter, so that a failed
// spec shows what its operator and the webhooks logged. RunScenarios calls it.
func SetDefaults() {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	EnforceDefaultTimeoutsWhenUsingContexts()
	SetDefaultEventuallyTimeout(Converge)
	SetDefaultEventuallyPollingInterval(Poll)
	SetDefaultConsistentlyDuration(AtRest)
	SetDefaultConsistentlyPollingInterval(Poll)
}

// RunScenarios runs a suite of scenarios, with the suite's defaults set (SetDefaults); args are
// RunSpecs's (a SuiteConfig whose LabelFilter leaves out what a tier cannot run, say).
func RunScenarios(t GinkgoTestingT, description string, args ...any) bool {
	RegisterFailHandler(Fail)
	SetDefaults()
	return RunSpecs(t, description, args...)
}

// ShareCluster is the suite's SynchronizedBeforeSuite. The first test process starts the cluster
// with start (cluster.StartControlPlane: envtest's), subject the operator under test, and stops
// it once every process has finished; it keeps the Cluster start returned (with the webhooks it
// serves for them all), and every other process attaches to it; each sets *into and komega's
// client. With `ginkgo -p` the processes share one control plane.
//
//	var suiteCluster cluster.Cluster
//	var _ = harness.ShareCluster(&suiteCluster, myoperator.Subject, cluster.StartControlPlane)
func ShareCluster(into *cluster.Cluster, subject operator.Subject, start cluster.Provider) bool {
	return SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
		kubeconfig := startShared(ctx, into, subject, start)
		DeferCleanup(into.Stop)
		return kubeconfig
	}, func(kubeconfig []byte) { attach(into, kubeconfig, subject) })
}

// startShared is what ShareCluster does in the first process, its cleanup aside. This process
// keeps the cluster it started, while the others attach: the webhooks it serves for them all
// (Cluster.Webhooks) are this process's to take down.
func startShared(ctx context.Context, into *cluster.Cluster, subject operator.Subject, start cluster.Provider) []byte {
	started, kubeconfig, err := start(ctx, subject)
	Expect(err).NotTo(HaveOccurred())
	*into = *started
	return kubeconfig
}

// attach is what ShareCluster does in every process.
func attach(into *cluster.Cluster, kubeconfig []byte, subject operator.Subject) {
	if into.Client == nil {
		attached, err := cluster.Attach(kubeconfig, subject)
		Expect(err).NotTo(HaveOccurred())
		*into = *attached
	}
	komega.SetClient(into.Client)
}
