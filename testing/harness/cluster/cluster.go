// Package cluster is where the scenarios run: the envtest control plane, shared by every test
// process of a suite, with an operator in the test process for each spec (StartControlPlane), or
// a cluster that another Provider starts or connects to.
package cluster

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
)

// Cluster is where the scenarios run.
type Cluster struct {
	// Config reaches the API server as an administrator; Client reads and writes straight to it,
	// with no cache in between.
	Config *rest.Config
	Client client.Client
	// RunOperator makes sure an operator, the subject as changes change it, reconciles
	// namespace, and returns it.
	RunOperator func(namespace string, changes operator.Changes) (*operator.Operator, error)
	// CollectsGarbage says that a garbage collector deletes what an object owned once it is gone
	// (on envtest none runs).
	CollectsGarbage bool
	// Stop releases the cluster.
	Stop func() error
}

// Provider starts, or connects to, a cluster with subject in it, and returns it with the
// kubeconfig another test process passes to Attach to use it too (nil: it serves one process).
// Call it in one process (Ginkgo's SynchronizedBeforeSuite).
type Provider func(ctx context.Context, subject operator.Subject) (*Cluster, []byte, error)

// StartControlPlane is the envtest tier's Provider: a control plane of this run's own, with the
// operator's CRDs installed and its webhooks served (ServeWebhooks), and an operator in this
// process for each namespace.
func StartControlPlane(_ context.Context, subject operator.Subject) (*Cluster, []byte, error) {
	env, err := controlplane.Start(subject.CRDs)
	if err != nil {
		return nil, nil, err
	}
	stopWebhooks, err := ServeWebhooks(env.Config, subject)
	if err != nil {
		return nil, nil, errors.Join(err, env.Stop())
	}
	stop := func() error { return errors.Join(stopWebhooks(), env.Stop()) }
	c, err := OnControlPlane(env.Config, subject, stop)
	if err != nil {
		return nil, nil, errors.Join(err, stop())
	}
	return c, env.KubeConfig, nil
}

// Attach returns the cluster that another process's Provider started, from the kubeconfig it
// returned there.
func Attach(kubeconfig []byte, subject operator.Subject) (*Cluster, error) {
	if len(kubeconfig) == 0 {
		return nil, errors.New("this cluster serves one test process: run it without -p / --procs")
	}
	cfg, err := ConfigOf(kubeconfig)
	if err != nil {
		return nil, err
	}
	return OnControlPlane(cfg, subject, func() error { return nil })
}

// ConfigOf reaches the control plane that kubeconfig describes, with envtest's client limits
// (a kubeconfig carries none).
func ConfigOf(kubeconfig []byte) (*rest.Config, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("read the control plane's kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	return cfg, nil
}

// OnControlPlane is the envtest tier on the control plane cfg reaches as an administrator: an
// operator in this process for each namespace (operator.InProcess). stop releases the control
// plane.
func OnControlPlane(cfg *rest.Config, subject operator.Subject, stop func() error) (*Cluster, error) {
	c, err := client.New(cfg, client.Options{Scheme: subject.Scheme})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	return &Cluster{Config: cfg, Client: c, Stop: stop, RunOperator: func(namespace string, changes operator.Changes) (*operator.Operator, error) {
		return operator.InProcess(cfg, namespace, subject, changes)
	}}, nil
}
