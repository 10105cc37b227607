// Package cluster is where the scenarios run: the envtest control plane, shared by every test
// process of a suite, with an operator in the test process for each spec; or, for the e2e tier, a
// real cluster whose one operator runs as in production (kind here; a local control plane through
// package localcluster). $SCENARIOS_TIER and $E2E_PROVIDER choose (package tiers). The operator
// under test is the Subject the suite hands over.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	// Subject is the operator under test.
	Subject() operator.Subject
	// RunOperator makes sure an operator, the subject as opts change it, reconciles namespace,
	// and returns it.
	RunOperator(namespace string, opts operator.Options) (*operator.Operator, error)
	// Stop releases the cluster.
	Stop() error
}

// Provider starts, or connects to, a cluster of the e2e tier with subject deployed in it.
type Provider func(ctx context.Context, subject operator.Subject) (Cluster, error)

// Start starts (or, for the e2e tier, connects to) the cluster of the current tier, for every
// test process of a suite to share. e2e adds providers of the e2e tier to the one built in (kind),
// by the $E2E_PROVIDER value that chooses them. It returns the cluster, and what another process
// passes to Attach to use it too; nil when the tier runs in one process. Call it in one process
// (Ginkgo's SynchronizedBeforeSuite).
func Start(ctx context.Context, subject operator.Subject, e2e map[string]Provider) (Cluster, []byte, error) {
	switch tier := os.Getenv(tiers.Env); tier {
	case "", tiers.Envtest:
		return startEnvtest(subject)
	case tiers.E2E:
		// One operator serves every namespace, and its counters with it: the e2e tier runs in
		// one process, which keeps the cluster it started.
		providers := map[string]Provider{tiers.ProviderKind: connectKind}
		for name, p := range e2e {
			providers[name] = p
		}
		name := os.Getenv(tiers.ProviderEnv)
		if name == "" {
			name = tiers.ProviderLocal
		}
		start, ok := providers[name]
		if !ok {
			return nil, nil, fmt.Errorf("%s=%q: this suite has no such provider", tiers.ProviderEnv, name)
		}
		c, err := start(ctx, subject)
		return c, nil, err
	default:
		return nil, nil, fmt.Errorf("%s=%q: want %s or %s", tiers.Env, tier, tiers.Envtest, tiers.E2E)
	}
}

// Attach returns the cluster that another process started, from what Start returned there.
func Attach(attachment []byte, subject operator.Subject) (Cluster, error) {
	if attachment == nil {
		return nil, errors.New("the e2e tier runs in one test process: run it without -p / --procs")
	}
	cfg, err := configOf(attachment)
	if err != nil {
		return nil, err
	}
	return newEnvtest(cfg, subject, func() error { return nil })
}

// NewClient is a client for cfg that knows scheme's kinds and reads straight from the API server.
func NewClient(cfg *rest.Config, scheme *runtime.Scheme) (client.WithWatch, error) {
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	return c, nil
}
