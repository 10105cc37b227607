// Package cluster is where the scenarios run, as package tiers chooses: the envtest control
// plane, shared by every test process of a suite, with an operator in the test process for each
// spec; or a real cluster whose one operator runs as in production, from a Provider the suite
// hands over.
package cluster

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/tiers"
)

// Cluster is where the scenarios run.
type Cluster interface {
	// Client reads and writes straight to the API server, with no cache in between.
	Client() client.Client
	// Config reaches the API server as an administrator, for what Client cannot ask.
	Config() *rest.Config
	// Subject is the operator under test.
	Subject() operator.Subject
	// RunOperator makes sure an operator, the subject as changes change it, reconciles
	// namespace, and returns it.
	RunOperator(namespace string, changes operator.Changes) (*operator.Operator, error)
	// Stop releases the cluster.
	Stop() error
}

// Provider starts, or connects to, a cluster with subject in it, and returns it with what another
// test process passes to Attach to use it too (nil when the tier runs in one process).
type Provider func(ctx context.Context, subject operator.Subject) (Cluster, []byte, error)

// Start starts (or connects to) the cluster of the current tier, for every test process of a
// suite to share, from providers: by the tier's provider name (tiers.Envtest, tiers.ProviderLocal,
// tiers.ProviderKind). The envtest tier has one built in, StartControlPlane. Call it in one
// process (Ginkgo's SynchronizedBeforeSuite).
func Start(ctx context.Context, subject operator.Subject, providers map[string]Provider) (Cluster, []byte, error) {
	tier, err := tiers.Current()
	if err != nil {
		return nil, nil, err
	}
	if start, ok := providers[tier.Provider]; ok {
		return start(ctx, subject)
	}
	if tier.Provider == tiers.Envtest {
		return StartControlPlane(ctx, subject)
	}
	return nil, nil, fmt.Errorf("this suite has no provider for the %s tier", tier.Provider)
}

// Attach returns the cluster that another process started, from what Start returned there.
func Attach(attachment []byte, subject operator.Subject) (Cluster, error) {
	if attachment == nil {
		return nil, errors.New("the e2e tier runs in one test process: run it without -p / --procs")
	}
	cfg, err := ConfigOf(attachment)
	if err != nil {
		return nil, err
	}
	return OnControlPlane(cfg, subject, func() error { return nil })
}

// NewClient is a client for cfg that knows scheme's kinds and reads straight from the API server.
func NewClient(cfg *rest.Config, scheme *runtime.Scheme) (client.WithWatch, error) {
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	return c, nil
}
