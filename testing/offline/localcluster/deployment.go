package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
)

// LocalDeployment is config/default installed into a LocalCluster, with the operator binary
// running as its Deployment would: a process of its own, authenticated as its ServiceAccount, so
// that it can do exactly what config/rbac grants. Its metrics are read as Prometheus would read
// them, with the token of a ServiceAccount bound to config/rbac's metrics-reader role.
type LocalDeployment struct {
	*LocalCluster
	// Client is a cluster administrator's.
	Client   client.Client
	Operator *operator.Operator
	// MetricsToken is the token of a ServiceAccount bound to the metrics-reader role;
	// MetricsURL, where the operator serves its metrics; OperatorLog, where it logs.
	MetricsToken, MetricsURL, OperatorLog string
	stopWebhooks                          func() error
}

// OperatorBinaryEnv names an operator binary for E2E to run.
const OperatorBinaryEnv = "E2E_OPERATOR_BINARY"

// E2E is the e2e tier without a node: the binary $E2E_OPERATOR_BINARY playing the Deployment on a
// LocalCluster, its logs in reports/e2e; no image, no root: the e2e tier where Docker is absent
// (make test-e2e-local), and how make test-first runs each revision's operator.
func E2E(ctx context.Context, subject operator.Subject) (*cluster.Cluster, []byte, error) {
	root, err := Root()
	if err != nil {
		return nil, nil, err
	}
	d, err := StartDeployment(ctx, filepath.Join(root, "reports", "e2e"), os.Getenv(OperatorBinaryEnv), subject)
	if err != nil {
		return nil, nil, err
	}
	return e2e.New(d.Config, d.Client, d.Operator, d.Stop), nil, nil
}

// StartDeployment starts a LocalCluster in dir and deploys binary, which runs subject, into it.
// subject's webhooks, if it has any, are served from this process, as on envtest: the binary's
// own webhook server would need the certificates that cert-manager gives a Deployment.
func StartDeployment(ctx context.Context, dir, binary string, subject operator.Subject) (*LocalDeployment, error) {
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("no operator binary at %s: run `make build`", binary)
	}
	root, err := Root()
	if err != nil {
		return nil, err
	}
	lc, err := Start(dir, subject.CRDs)
	if err != nil {
		return nil, err
	}
	stopWebhooks, err := cluster.ServeWebhooks(lc.Config, subject)
	if err != nil {
		return nil, errors.Join(err, lc.Stop())
	}
	d, err := deploy(ctx, lc, filepath.Join(root, "config", "default"), binary, subject)
	if err != nil {
		return nil, errors.Join(err, stopWebhooks(), lc.Stop())
	}
	d.stopWebhooks = stopWebhooks
	return d, nil
}

func deploy(ctx context.Context, lc *LocalCluster, kustomizeDir, binary string, subject operator.Subject) (*LocalDeployment, error) {
	c, err := client.New(lc.Config, client.Options{Scheme: subject.Scheme})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", lc.Config.Host, err)
	}
	m, err := render(ctx, lc.Kubectl(), kustomizeDir)
	if err != nil {
		return nil, err
	}
	// The CRDs are the control plane's already; the operator runs as a local process, under the
	// Deployment's ServiceAccount.
	operatorConfig, metricsToken, err := e2e.Install(ctx, c, lc.Config, m, "CustomResourceDefinition", "Deployment")
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(lc.Dir, "operator.kubeconfig")
	if err := e2e.WriteKubeconfig(kubeconfig, operatorConfig); err != nil {
		return nil, err
	}
	b, err := newBinary(binary, kubeconfig, m.Namespace, filepath.Join(lc.Dir, "operator.log"))
	if err != nil {
		return nil, err
	}
	d := &LocalDeployment{LocalCluster: lc, Client: c, MetricsToken: metricsToken, OperatorLog: b.log,
		MetricsURL: fmt.Sprintf("https://127.0.0.1:%d/metrics", b.metricsPort)}
	d.Operator = operator.New(subject, operator.Controls{
		Metrics: func() ([]*dto.MetricFamily, error) {
			return e2e.Scrape(context.Background(), d.MetricsURL, metricsToken)
		},
		Writes: e2e.AuditWrites(lc.AuditLog, m.Username()),
		Start:  b.up,
		Stop:   b.down,
		Kill:   b.kill,
		Logs:   func() string { return e2e.LastLines(append(lc.Logs(), b.log), 40) },
	})
	if err := d.Operator.Up(); err != nil {
		return nil, errors.Join(err, d.Operator.Down())
	}
	return d, nil
}

// render renders kustomizeDir with kubectl's built-in kustomize.
func render(ctx context.Context, kubectl, kustomizeDir string) (e2e.Manifests, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, kubectl, "kustomize", kustomizeDir)
	cmd.Stderr = &stderr
	rendered, err := cmd.Output()
	if err != nil {
		return e2e.Manifests{}, fmt.Errorf("kubectl kustomize %s: %w: %s", kustomizeDir, err, stderr.String())
	}
	m, err := e2e.ReadManifests(rendered)
	if err != nil {
		return m, fmt.Errorf("%s: %w", kustomizeDir, err)
	}
	return m, nil
}

// Stop stops the operator, then the webhooks and the cluster.
func (d *LocalDeployment) Stop() error {
	return errors.Join(d.Operator.Down(), d.stopWebhooks(), d.LocalCluster.Stop())
}
