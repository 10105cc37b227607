// Package cluster is where the scenarios run: the envtest control plane, shared by every test
// process of a suite, with an operator in the test process for each spec; or, for the e2e tier, a
// real cluster whose one operator runs as in production (a local control plane with
// kube-controller-manager and the operator binary as a process, or kind). $SCENARIOS_TIER and
// $E2E_PROVIDER choose (package tiers).
package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/controllers"
	"example.com/operator-demo/testing/operator"
	"example.com/operator-demo/testing/tiers"
)

// Cluster is where the scenarios run.
type Cluster interface {
	// Client reads and writes straight to the API server, with no cache in between: what a
	// scenario reads is what the server holds.
	Client() client.Client
	// Config reaches the API server as an administrator, for what Client cannot ask (the table
	// `kubectl get` prints).
	Config() *rest.Config
	// RunOperator makes sure an operator whose controllers setup registers (the operator's own,
	// operator.Production, when nil) reconciles namespace, and returns it.
	RunOperator(namespace string, setup operator.Setup) (*operator.Operator, error)
	// Stop releases the cluster.
	Stop() error
}

// Start starts (or, for kind, connects to) the cluster of the current tier, for every test
// process of a suite to share. It returns the cluster, and what another process passes to Attach
// to use it too; nil when the tier runs in one process. Call it in one process (Ginkgo's
// SynchronizedBeforeSuite).
func Start(ctx context.Context) (Cluster, []byte, error) {
	switch tier := os.Getenv(tiers.Env); tier {
	case "", tiers.Envtest:
		return startEnvtest()
	case tiers.E2E:
		// One operator serves every namespace, and its counters with it: the e2e tier runs in
		// one process, which keeps the cluster it started.
		c, err := startE2E(ctx)
		return c, nil, err
	default:
		return nil, nil, fmt.Errorf("%s=%q: want %s or %s", tiers.Env, tier, tiers.Envtest, tiers.E2E)
	}
}

// Attach returns the cluster that another process started, from what Start returned there.
func Attach(attachment []byte) (Cluster, error) {
	if attachment == nil {
		return nil, errors.New("the e2e tier runs in one test process: run it without -p / --procs")
	}
	cfg, err := configOf(attachment)
	if err != nil {
		return nil, err
	}
	return newEnvtest(cfg, func() error { return nil })
}

// NewClient is a client for cfg that knows the built-in kinds and the Sample API, and reads
// straight from the API server.
func NewClient(cfg *rest.Config) (client.WithWatch, error) {
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	return c, nil
}
