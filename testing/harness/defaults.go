package harness

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
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
