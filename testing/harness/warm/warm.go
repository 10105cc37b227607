// Package warm attaches the scenarios to a warm control plane: one that `make envtest-up` started
// and left running (testing/workshop/envtestup), for the test-first loop. A run attaches to it
// instead of starting its own, which saves the seconds etcd and kube-apiserver take to start. Each
// spec still has its own namespace and its own operator, so nothing leaks from one run to the
// next. A suite takes it as its envtest provider: {tiers.Envtest: warm.Start}.
package warm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"example.com/operator-demo/testing/harness/assets"
	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
)

// File is where a warm control plane's attachment, its kubeconfig, is written, under the
// repository root.
var File = filepath.Join("bin", "envtest-up", "kubeconfig")

// Env names another warm control plane's attachment file to attach to, for a run in a tree that
// has none of its own.
const Env = "ENVTEST_WARM"

// answerWithin is how long a warm control plane has to answer before it is taken for dead.
const answerWithin = 2 * time.Second

// Start attaches to the warm control plane, with the operator's CRDs applied again (they may
// have changed since it started) and its webhooks served (cluster.ServeWebhooks), when one is up;
// else it starts a control plane of this run's own (cluster.StartControlPlane), from the binaries
// in $KUBEBUILDER_ASSETS, or where make installed them (assets.Export). One that does
// not answer within answerWithin is passed over, with a line on stderr: the run never waits on a
// dead one.
func Start(ctx context.Context, subject operator.Subject) (*cluster.Cluster, []byte, error) {
	path := os.Getenv(Env)
	if path == "" {
		path, _ = controlplane.Find(File) // none found: "", which Read finds not to exist
	}
	cfg, attachment, err := Read(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "warm control plane (%s): %v; starting one of this run's own\n", path, err)
		}
		// make sets KUBEBUILDER_ASSETS; a run without it (go test, an IDE) finds what make installed.
		if err := assets.Export(); err != nil {
			return nil, nil, err
		}
		return cluster.StartControlPlane(ctx, subject)
	}
	crds, err := controlplane.FindAll(subject.CRDs, controlplane.DefaultCRDs)
	if err != nil {
		return nil, nil, err
	}
	installed, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: crds, ErrorIfPathMissing: true})
	if err != nil {
		return nil, nil, fmt.Errorf("apply the CRDs of %v to the warm control plane: %w", crds, err)
	}
	controlplane.WaitPastCreateHoldBack(cfg, installed)
	served, err := cluster.NewWebhooks(func() (func() error, error) { return cluster.ServeWebhooks(cfg, subject) })
	if err != nil {
		return nil, nil, err
	}
	c, err := cluster.OnControlPlane(cfg, subject, served.Down)
	if err != nil {
		return nil, nil, errors.Join(err, served.Down())
	}
	c.Webhooks = served
	return c, attachment, nil
}

// Read reads the warm control plane's attachment (its kubeconfig) at path and checks that it
// answers /readyz within answerWithin. The error wraps os.ErrNotExist when none was started.
func Read(path string) (*rest.Config, []byte, error) {
	attachment, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := cluster.ConfigOf(attachment)
	if err != nil {
		return nil, nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), answerWithin)
	defer cancel()
	if err := dc.RESTClient().Get().AbsPath("/readyz").Do(ctx).Error(); err != nil {
		return nil, nil, fmt.Errorf("%s does not answer /readyz: %w", cfg.Host, err)
	}
	return cfg, attachment, nil
}
