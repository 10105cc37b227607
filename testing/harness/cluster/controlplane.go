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

// onControlPlane is the envtest tier: a control plane (this process's, or shared by another) and
// an operator in this process for each namespace.
type onControlPlane struct {
	config  *rest.Config
	client  client.Client
	subject operator.Subject
	stop    func() error
}

// StartControlPlane starts a control plane of this run's own, with the operator's CRDs installed
// and its webhooks served (ServeWebhooks). What another process attaches with is its kubeconfig.
func StartControlPlane(_ context.Context, subject operator.Subject) (Cluster, []byte, error) {
	cp, err := controlplane.Start(subject.CRDs)
	if err != nil {
		return nil, nil, err
	}
	stopWebhooks, err := ServeWebhooks(cp.Config, subject)
	if err != nil {
		return nil, nil, errors.Join(err, cp.Stop())
	}
	stop := func() error { return errors.Join(stopWebhooks(), cp.Stop()) }
	c, err := OnControlPlane(cp.Config, subject, stop)
	if err != nil {
		return nil, nil, errors.Join(err, stop())
	}
	return c, cp.Env.KubeConfig, nil
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
// operator in this process for each namespace. stop releases the control plane.
func OnControlPlane(cfg *rest.Config, subject operator.Subject, stop func() error) (Cluster, error) {
	c, err := NewClient(cfg, subject.Scheme)
	if err != nil {
		return nil, err
	}
	return &onControlPlane{config: cfg, client: c, subject: subject, stop: stop}, nil
}

func (e *onControlPlane) Client() client.Client { return e.client }

func (e *onControlPlane) Config() *rest.Config { return e.config }

func (e *onControlPlane) Subject() operator.Subject { return e.subject }

func (e *onControlPlane) RunOperator(namespace string, changes operator.Changes) (*operator.Operator, error) {
	return operator.InProcess(e.config, namespace, e.subject, changes)
}

func (e *onControlPlane) Stop() error { return e.stop() }
