// Package e2e is the e2e tier's cluster: a real one, whose one operator runs as in production,
// under its own ServiceAccount with exactly config/rbac, seen only through the API server: its
// reconciles through its metrics endpoint, its writes through the API server's audit log (the
// operator need export no count of its own). Deploy deploys it, on any cluster whose node has its
// image; Kind is the provider for the cluster in $KUBECONFIG (kind, in GitHub Actions), package
// node's E2E another, on this machine. A suite hands them to cluster.Start:
// {tiers.ProviderKind: e2e.Kind}.
package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	"example.com/operator-demo/testing/cluster"
	"example.com/operator-demo/testing/operator"
	"example.com/operator-demo/testing/tiers"
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
func (e *e2eCluster) RunOperator(_ string, opts operator.Options) (*operator.Operator, error) {
	if !opts.Zero() {
		return nil, fmt.Errorf("the e2e tier runs the operator's own binary as deployed; label the scenario %q", tiers.NeedsInProcessOperator)
	}
	return e.operator, nil
}

func (e *e2eCluster) Stop() error { return e.stop() }

// The environment that testing/e2e-kind.sh sets for Kind.
const (
	// ManifestsEnv names the file of the operator's manifests, rendered with its image.
	ManifestsEnv = "E2E_MANIFESTS"
	// AuditLogEnv names the API server's audit log (written with AuditPolicy), on this machine.
	AuditLogEnv = "E2E_AUDIT_LOG"
	// NodeCtrEnv is the command, its words separated by spaces, that runs ctr in the k8s.io
	// namespace of the node's container runtime (on kind: docker exec <node> ctr -n k8s.io):
	// the operator is killed with it. Unset, it cannot be.
	NodeCtrEnv = "E2E_NODE_CTR"
)

// Kind is the cluster in $KUBECONFIG, where `make test-e2e E2E_PROVIDER=kind` has loaded the
// operator's image: it deploys the operator from $E2E_MANIFESTS (Deploy) and counts its writes
// from the API server's audit log in $E2E_AUDIT_LOG.
func Kind(ctx context.Context, subject operator.Subject) (cluster.Cluster, []byte, error) {
	cfg, err := config.GetConfig()
	if err != nil {
		return nil, nil, err
	}
	env := map[string]string{}
	for _, name := range []string{ManifestsEnv, AuditLogEnv} {
		if env[name] = os.Getenv(name); env[name] == "" {
			return nil, nil, fmt.Errorf("%s is not set: `make test-e2e-kind` (testing/e2e-kind.sh) sets it", name)
		}
	}
	rendered, err := os.ReadFile(env[ManifestsEnv])
	if err != nil {
		return nil, nil, err
	}
	logs, err := os.MkdirTemp("", "operator-demo-e2e-logs-")
	if err != nil {
		return nil, nil, err
	}
	opts := Options{AuditLog: env[AuditLogEnv], LogDir: logs}
	if ctr := strings.Fields(os.Getenv(NodeCtrEnv)); len(ctr) > 0 {
		opts.Kill = CtrKill(ctr)
	}
	d, err := Deploy(ctx, cfg, subject, rendered, opts)
	if err != nil {
		return nil, nil, err
	}
	return New(cfg, d.Client, d.Operator, d.Stop), nil, nil
}
