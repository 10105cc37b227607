package localcluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

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
	// Webhooks are the subject's, served from this process (StartRelease, ReplaceCRDs).
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

// StartDeployment starts a LocalCluster in dir and deploys binary, which runs subject, into it:
// StartRelease of the working tree's release.
func StartDeployment(ctx context.Context, dir, binary string, subject operator.Subject) (*LocalDeployment, error) {
	return StartRelease(ctx, dir, Release{Binary: binary}, subject)
}

// Release is a release of the operator as a cluster receives it: the manager binary built from
// it, and Root, the tree it was built from (a worktree of an older commit, say), whose
// config/default is deployed with it and whose directories subject's CRDs name. An empty Root is
// the working tree, where each is found as the harness finds a repository's files
// (controlplane.Find: a break's copy of one stands in for it, make mutate's). subject's webhook
// configurations are the working tree's either way.
type Release struct{ Root, Binary string }

// crds is subject as release ships it: its CRDs (default: config/crd/bases) those of release's
// tree.
func (r Release) crds(subject operator.Subject) operator.Subject {
	if r.Root == "" {
		return subject
	}
	dirs := subject.CRDs
	if len(dirs) == 0 {
		dirs = []string{controlplane.DefaultCRDs}
	}
	subject.CRDs = make([]string, len(dirs))
	for i, dir := range dirs {
		subject.CRDs[i] = dir
		if !filepath.IsAbs(dir) {
			subject.CRDs[i] = filepath.Join(r.Root, dir)
		}
	}
	return subject
}

// StartRelease starts a LocalCluster in dir and deploys release, whose binary runs subject, into
// it. subject's webhooks, if it has any, are served from this process, as on envtest, through the
// CRDs of subject.CRDs, which the harness points here: the binary serves none (no
// --webhook-cert-dir), as the certificate it issues on a cluster is for a Service's name, which no
// local control plane resolves.
func StartRelease(ctx context.Context, dir string, release Release, subject operator.Subject) (*LocalDeployment, error) {
	if _, err := os.Stat(release.Binary); err != nil {
		return nil, fmt.Errorf("no operator binary at %s: run `make build`: %w", release.Binary, err)
	}
	subject = release.crds(subject)
	lc, err := Start(dir, subject.CRDs)
	if err != nil {
		return nil, err
	}
	d := &LocalDeployment{LocalCluster: lc, OperatorLog: filepath.Join(lc.Dir, "operator.log")}
	if d.Webhooks, err = d.serve(subject); err != nil {
		return nil, errors.Join(err, lc.Stop())
	}
	if err := d.deploy(ctx, release, subject); err != nil {
		return nil, errors.Join(err, d.Webhooks.Down(), lc.Stop())
	}
	return d, nil
}

// ReplaceCRDs stops the operator (and the webhooks served for it), then installs release's CRDs
// (subject's) over the cluster's, converting through subject's webhooks where it has any, served
// from this process. An API server that refuses them (a release whose CRD drops a version still
// stored) fails it, in its words, with the operator stopped.
func (d *LocalDeployment) ReplaceCRDs(release Release, subject operator.Subject) error {
	if err := errors.Join(d.Operator.Down(), d.Webhooks.Down()); err != nil {
		return fmt.Errorf("stop the release before: %w", err)
	}
	subject = release.crds(subject)
	if subject.Webhooks == nil { // serve, below, installs them where there are webhooks to convert
		if _, err := envtest.InstallCRDs(d.Config, envtest.CRDInstallOptions{Paths: subject.CRDs, ErrorIfPathMissing: true}); err != nil {
			return fmt.Errorf("install the CRDs of %v: %w", subject.CRDs, err)
		}
	}
	var err error
	if d.Webhooks, err = d.serve(subject); err != nil {
		return fmt.Errorf("serve the webhooks of the release at %s: %w", cmp.Or(release.Root, "the working tree"), err)
	}
	return nil
}

// Deploy applies release's config/default to the cluster and starts its binary, which runs
// subject, in place of the operator, and waits until its controllers report.
func (d *LocalDeployment) Deploy(ctx context.Context, release Release, subject operator.Subject) error {
	if _, err := os.Stat(release.Binary); err != nil {
		return fmt.Errorf("no operator binary at %s: %w", release.Binary, err)
	}
	if err := d.Operator.Down(); err != nil {
		return fmt.Errorf("stop the operator it replaces: %w", err)
	}
	return d.deploy(ctx, release, subject)
}

// serve serves subject's webhooks from this process (none: nothing to serve).
func (d *LocalDeployment) serve(subject operator.Subject) (*cluster.Webhooks, error) {
	return cluster.NewWebhooks(func() (func() error, error) { return cluster.ServeWebhooks(d.Config, subject) })
}

func (d *LocalDeployment) deploy(ctx context.Context, release Release, subject operator.Subject) (err error) {
	if d.Client, err = client.New(d.Config, client.Options{Scheme: subject.Scheme}); err != nil {
		return fmt.Errorf("client for %s: %w", d.Config.Host, err)
	}
	// The release's config/default, rendered with kubectl's built-in kustomize.
	kustomizeDir := filepath.Join(release.Root, "config", "default")
	if release.Root == "" {
		if kustomizeDir, err = controlplane.Find(kustomizeDir); err != nil {
			return err
		}
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
			proc, err = startProcess("operator", d.OperatorLog, 30*time.Second, release.Binary, args...)
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
