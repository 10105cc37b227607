// Package e2e is the e2e tier's cluster: a real one, whose one operator runs as in production,
// under its own ServiceAccount with exactly config/rbac, seen only through the API server: its
// reconciles through its metrics endpoint, its writes through the API server's audit log (the
// operator need export no count of its own). Deploy deploys it on the kind cluster in $KUBECONFIG
// (testing/e2e/kind.sh's), whose node has its image; Kind is the provider for that cluster. A
// suite chooses it by tier (package tiers): {tiers.ProviderKind: e2e.Kind}.
package e2e

import (
	"fmt"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
)

// New is a cluster of the e2e tier, reached by cfg as an administrator (with c), where op is the
// one operator, shared by every spec, and a garbage collector runs; stop releases it. It cannot
// rewire the operator for a namespace: a spec that changes it is an error.
func New(cfg *rest.Config, c client.Client, op *operator.Operator, stop func() error) *cluster.Cluster {
	return &cluster.Cluster{Config: cfg, Client: c, CollectsGarbage: true, Stop: stop,
		RunOperator: func(_ string, changes operator.Changes) (*operator.Operator, func() error, error) {
			if changes.Setup != nil || len(changes.Settings) > 0 || changes.ClientConfig != nil {
				return nil, nil, fmt.Errorf("the e2e tier runs the operator's own binary as deployed; label the scenario %q", tiers.NeedsInProcessOperator)
			}
			return op, op.Up, nil
		}}
}
