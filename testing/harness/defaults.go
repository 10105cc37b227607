package harness

import (
	"time"

	. "github.com/onsi/gomega"
)

// How long the specs wait. SetDefaults makes Converge and AtRest what Eventually and Consistently
// use unless a spec names another, with the reason beside it.
const (
	// Converge bounds how long the operator may take to act on a change.
	Converge = 10 * time.Second
	// Failover bounds how long a new operator may take to become leader after the old one was
	// killed: the old one's lease must expire first (LeaseDuration 15 s, RetryPeriod 2 s).
	Failover = 30 * time.Second
	// Recover bounds how long an object whose write the API server refused takes to become ready
	// once the refusal is lifted: the retry's backoff, capped at 30 s by the controller's rate
	// limiter, and then Converge.
	Recover = 30*time.Second + Converge
	// Standby is how long a test watches a standby replica not take the lease: two of leader
	// election's 2 s retry periods and a margin, so that it sees the standby try at least once.
	Standby = 5 * time.Second
	// AtRest is how long a spec watches for something that must not happen. What it catches
	// (a reconcile loop, a write on a no-op pass, a revert the operator should not make) shows
	// within a few hundred milliseconds: a status loop runs hundreds of reconciles a second here, and
	// every spec watches only after the reconcile under test has been seen to happen.
	AtRest = 1 * time.Second
	// Poll is how often Eventually and Consistently look.
	Poll = 100 * time.Millisecond
)

// SetDefaults makes Eventually wait up to Converge and Consistently watch for AtRest, both
// looking every Poll, also when they are given the spec's context: by default Gomega gives an
// Eventually with a context no timeout but the context's, and a failing spec would wait until
// the suite's. Each suite calls it once, before RunSpecs.
func SetDefaults() {
	EnforceDefaultTimeoutsWhenUsingContexts()
	SetDefaultEventuallyTimeout(Converge)
	SetDefaultEventuallyPollingInterval(Poll)
	SetDefaultConsistentlyDuration(AtRest)
	SetDefaultConsistentlyPollingInterval(Poll)
}
