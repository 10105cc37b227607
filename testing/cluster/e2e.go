package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/operator"
	"example.com/operator-demo/testing/tiers"
)

// e2eCluster is the e2e tier: one operator for the whole cluster, running as in production, as
// its own process under its own ServiceAccount with exactly config/rbac. Scenarios see it only
// through the API server and its metrics endpoint.
type e2eCluster struct {
	config   *rest.Config
	client   client.Client
	operator *operator.Operator
	stop     func() error
}

func startE2E(ctx context.Context) (*e2eCluster, error) {
	switch provider := os.Getenv(tiers.ProviderEnv); provider {
	case "", tiers.ProviderLocal:
		return startLocalE2E(ctx)
	case tiers.ProviderKind:
		return connectKind(ctx)
	default:
		return nil, fmt.Errorf("%s=%q: want %s or %s", tiers.ProviderEnv, provider, tiers.ProviderLocal, tiers.ProviderKind)
	}
}

func (e *e2eCluster) Client() client.Client { return e.client }

func (e *e2eCluster) Config() *rest.Config { return e.config }

// RunOperator returns the cluster's one operator: the e2e tier cannot rewire it per namespace.
func (e *e2eCluster) RunOperator(_ string, setup operator.Setup) (*operator.Operator, error) {
	if setup != nil {
		return nil, fmt.Errorf("the e2e tier runs the operator's own binary only; label the scenario %q", tiers.NeedsInProcessOperator)
	}
	return e.operator, nil
}

func (e *e2eCluster) Stop() error { return e.stop() }

// startLocalE2E runs the e2e tier on a LocalDeployment of bin/manager (or $E2E_OPERATOR_BINARY).
func startLocalE2E(ctx context.Context) (*e2eCluster, error) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return nil, err
	}
	binary := filepath.Join(root, "bin", "manager")
	if b := os.Getenv("E2E_OPERATOR_BINARY"); b != "" {
		binary = b
	}
	d, err := StartLocalDeployment(ctx, filepath.Join(root, "reports", "e2e"), binary)
	if err != nil {
		return nil, err
	}
	return &e2eCluster{config: d.Config, client: d.Client, operator: d.Operator, stop: d.Stop}, nil
}

// connectKind attaches to the cluster in $KUBECONFIG, where `make test-e2e E2E_PROVIDER=kind` has
// deployed the operator and forwards its metrics port to $E2E_METRICS_URL.
func connectKind(ctx context.Context) (*e2eCluster, error) {
	cfg, err := config.GetConfig()
	if err != nil {
		return nil, err
	}
	url := os.Getenv("E2E_METRICS_URL")
	if url == "" {
		return nil, errors.New("E2E_METRICS_URL is not set: `make test-e2e` port-forwards the metrics service and sets it")
	}
	c, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	token, err := metricsReaderToken(ctx, c, cfg)
	if err != nil {
		return nil, err
	}
	return &e2eCluster{config: cfg, client: c, operator: operator.Deployed(url, token), stop: func() error { return nil }}, nil
}
