// Package e2e is the e2e tier's cluster: a real one, whose one operator runs as in production,
// under its own ServiceAccount with exactly config/rbac, seen only through the API server: its
// reconciles through its metrics endpoint, its writes through the API server's audit log (the
// operator need export no count of its own). Deploy deploys it, on any cluster whose node has its
// image; Kind is the provider for the kind cluster in $KUBECONFIG (testing/e2e/kind.sh's). A suite
// hands it to cluster.Start: {tiers.ProviderKind: e2e.Kind}.
package e2e

import (
	"fmt"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/tiers"
)

// e2eCluster is a cluster of the e2e tier: one operator for the whole cluster.
type e2eCluster struct {
	config   *rest.Config
	client   client.Client
	operator *operator.Operator
	stop     func() error
}

// New is a cluster of the e2e tier, reached by cfg as an administrator (with c), where op is the
// one operator; stop releases it.
func New(cfg *rest.Config, c client.Client, op *operator.Operator, stop func() error) cluster.Cluster {
	return &e2eCluster{config: cfg, client: c, operator: op, stop: stop}
}

func (e *e2eCluster) Client() client.Client { return e.client }

func (e *e2eCluster) Config() *rest.Config { return e.config }

func (e *e2eCluster) Subject() operator.Subject { return e.operator.Subject() }

// RunOperator returns the cluster's one operator: the e2e tier cannot rewire it per namespace.
func (e *e2eCluster) RunOperator(_ string, opts operator.Changes) (*operator.Operator, error) {
	if !opts.Zero() {
		return nil, fmt.Errorf("the e2e tier runs the operator's own binary as deployed; label the scenario %q", tiers.NeedsInProcessOperator)
	}
	return e.operator, nil
}

func (e *e2eCluster) Stop() error { return e.stop() }
