package localcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/poll"
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
	// Webhooks are the subject's, served from this process (StartDeployment).
	Webhooks *cluster.Webhooks
}

// E2E is the e2e tier without a node: the binary $E2E_OPERATOR_BINARY playing the Deployment on a
// LocalCluster, its logs in reports/e2e; no image, no root: the e2e tier where Docker is absent
// (make test-e2e-local), and how make test-first runs each revision's operator.
func E2E(ctx context.Context, subject operator.Subject) (*cluster.Cluster, []byte, error) {
	root, err := Root()
	if err != nil {
		return nil, nil, err
	}
	d, err := StartDeployment(ctx, filepath.Join(root, "reports", "e2e"), os.Getenv("E2E_OPERATOR_BINARY"), subject)
	if err != nil {
		return nil, nil, err
	}
	c := e2e.New(d.Config, d.Client, d.Operator, d.Stop)
	c.Webhooks = d.Webhooks
	return c, nil, nil
}

// StartDeployment starts a LocalCluster in dir and deploys binary, which runs subject, into it.
// subject's webhooks, if it has any, are served from this process, as on envtest, through the
// CRDs of subject.CRDs, which the harness points here: the binary serves none (no
// --webhook-cert-dir), as the certificate it issues on a cluster is for a Service's name, which no
// local control plane resolves.
func StartDeployment(ctx context.Context, dir, binary string, subject operator.Subject) (*LocalDeployment, error) {
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("no operator binary at %s: run `make build`", binary)
	}
	lc, err := Start(dir, subject.CRDs)
	if err != nil {
		return nil, err
	}
	d := &LocalDeployment{LocalCluster: lc, OperatorLog: filepath.Join(lc.Dir, "operator.log")}
	if d.Webhooks, err = cluster.NewWebhooks(func() (func() error, error) { return cluster.ServeWebhooks(lc.Config, subject) }); err != nil {
		return nil, errors.Join(err, lc.Stop())
	}
	if err := d.deploy(ctx, binary, subject); err != nil {
		return nil, errors.Join(err, d.Webhooks.Down(), lc.Stop())
	}
	return d, nil
}

func (d *LocalDeployment) deploy(ctx context.Context, binary string, subject operator.Subject) (err error) {
	if d.Client, err = client.New(d.Config, client.Options{Scheme: subject.Scheme}); err != nil {
		return fmt.Errorf("client for %s: %w", d.Config.Host, err)
	}
	// config/default, rendered with kubectl's built-in kustomize.
	kustomizeDir, err := controlplane.Find(filepath.Join("config", "default"))
	if err != nil {
		return err
	}
	rendered, err := e2e.Run(ctx, nil, d.ControlPlane.KubectlPath, "kustomize", kustomizeDir)
	if err != nil {
		return err
	}
	m, err := e2e.ReadManifests(rendered)
	if err != nil {
		return fmt.Errorf("%s: %w", kustomizeDir, err)
	}
	// The CRDs are the control plane's already; the operator runs as a local process, under the
	// Deployment's ServiceAccount.
	operatorConfig, metricsToken, err := e2e.Install(ctx, d.Client, d.Config, m, "CustomResourceDefinition", "Deployment")
	if err != nil {
		return err
	}
	d.MetricsToken = metricsToken
	kubeconfig := filepath.Join(d.Dir, "operator.kubeconfig")
	if err := e2e.WriteKubeconfig(kubeconfig, operatorConfig); err != nil {
		return err
	}
	metricsPort, err := freePort()
	if err != nil {
		return err
	}
	d.MetricsURL = fmt.Sprintf("https://127.0.0.1:%d/metrics", metricsPort)
	// It runs as its Deployment runs it (config/manager's flags, leader election among them), as a
	// process of the test's, whose runs append to one log. No kubelet probes it here: its /readyz
	// (healthz.Ping) says less than what Up waits for, its controllers reporting.
	args := []string{"--kubeconfig=" + kubeconfig, "--leader-elect", "--leader-election-namespace=" + m.Namespace,
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metricsPort), "--health-probe-bind-address=0"}
	var proc *process
	d.Operator = operator.New(subject, operator.Controls{
		Metrics: func() ([]*dto.MetricFamily, error) {
			if proc != nil {
				select {
				case <-proc.done:
					// Final (poll.Stop): Up fails at once, not when its wait for the controllers ends.
					return nil, poll.Stop(fmt.Errorf("the operator exited, see %s: %w", d.OperatorLog, proc.err))
				default:
				}
			}
			return e2e.Scrape(context.Background(), d.MetricsURL, d.MetricsToken)
		},
		Writes: e2e.AuditWrites(d.AuditLog, serviceaccount.MakeUsername(m.Namespace, m.ServiceAccount)),
		Start: func() (err error) {
			proc, err = startProcess("operator", d.OperatorLog, 30*time.Second, binary, args...)
			return err
		},
		Stop: func() error { return proc.Stop() },
		Kill: func() error { proc.Kill(); return nil },
		Logs: func() string { return d.lastLines(40, d.OperatorLog) },
	})
	if err := d.Operator.Up(); err != nil {
		return errors.Join(err, d.Operator.Down())
	}
	return nil
}

// Stop stops the operator, then the webhooks and the cluster.
func (d *LocalDeployment) Stop() error {
	return errors.Join(d.Operator.Down(), d.Webhooks.Down(), d.LocalCluster.Stop())
}
