// Package e2e is the e2e tier's cluster: a real one, whose one operator runs as in production,
// under its own ServiceAccount with exactly config/rbac, seen only through the API server: its
// reconciles through its metrics endpoint, its writes through the API server's audit log (the
// operator need export no count of its own). Kind is its provider for the cluster in $KUBECONFIG
// (kind, in GitHub Actions); package localcluster is another. A suite hands them to
// cluster.Start: {tiers.ProviderKind: e2e.Kind}.
package e2e

import (
	"context"
	"fmt"
	"os"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	"example.com/operator-demo/testing/cluster"
	"example.com/operator-demo/testing/metrics"
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
	// MetricsURLEnv is where the operator's metrics Service is forwarded.
	MetricsURLEnv = "E2E_METRICS_URL"
	// ManifestsEnv names the file of the operator's manifests as applied.
	ManifestsEnv = "E2E_MANIFESTS"
	// AuditLogEnv names the API server's audit log (written with AuditPolicy), on this machine.
	AuditLogEnv = "E2E_AUDIT_LOG"
)

// Kind attaches to the cluster in $KUBECONFIG, where `make test-e2e E2E_PROVIDER=kind` has
// deployed the operator ($E2E_MANIFESTS), forwards its metrics port to $E2E_METRICS_URL and keeps
// the API server's audit log in $E2E_AUDIT_LOG.
func Kind(ctx context.Context, subject operator.Subject) (cluster.Cluster, []byte, error) {
	cfg, err := config.GetConfig()
	if err != nil {
		return nil, nil, err
	}
	env := map[string]string{}
	for _, name := range []string{MetricsURLEnv, ManifestsEnv, AuditLogEnv} {
		if env[name] = os.Getenv(name); env[name] == "" {
			return nil, nil, fmt.Errorf("%s is not set: `make test-e2e-kind` (testing/e2e-kind.sh) sets it", name)
		}
	}
	rendered, err := os.ReadFile(env[ManifestsEnv])
	if err != nil {
		return nil, nil, err
	}
	m, err := ReadManifests(rendered)
	if err != nil {
		return nil, nil, err
	}
	c, err := cluster.NewClient(cfg, subject.Scheme)
	if err != nil {
		return nil, nil, err
	}
	token, err := MetricsReaderToken(ctx, c, cfg, m)
	if err != nil {
		return nil, nil, err
	}
	op := Deployed(subject, env[MetricsURLEnv], token, AuditWrites(env[AuditLogEnv], m.Username()))
	return New(cfg, c, op, func() error { return nil }), nil, nil
}

// Deployed is an operator that runs on its own, as a Deployment of a cluster, reached only
// through its metrics at url (with token as bearer) and its writes as the API server records
// them: it cannot be stopped from here.
func Deployed(subject operator.Subject, url, token string, writes func() (map[string]float64, error)) *operator.Operator {
	cannot := func() error {
		return fmt.Errorf("the operator behind %s is a Deployment: the suite neither stops nor starts it", url)
	}
	return operator.New(subject, operator.Controls{
		Metrics: func() ([]*dto.MetricFamily, error) { return metrics.Scrape(context.Background(), url, token) },
		Writes:  writes,
		Start:   cannot, Stop: cannot, Kill: cannot,
		Logs:    func() []string { return nil },
		URL:     url,
		Shared:  true,
		Running: true,
	})
}
