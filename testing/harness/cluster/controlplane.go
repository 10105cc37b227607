package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
)

// envtestCluster is the envtest tier: a control plane (this process's, or shared by another) and
// an operator in this process for each namespace.
type envtestCluster struct {
	config  *rest.Config
	client  client.Client
	subject operator.Subject
	stop    func() error
}

// envtestAttachment is how another process reaches the shared envtest control plane.
type envtestAttachment struct {
	Host          string
	CA, Cert, Key []byte
	QPS           float32
	Burst         int
}

// StartEnvtest starts a control plane of this run's own, with the operator's CRDs installed and
// its webhooks served (ServeWebhooks).
func StartEnvtest(_ context.Context, subject operator.Subject) (Cluster, []byte, error) {
	cp, err := controlplane.Start(subject.CRDs)
	if err != nil {
		return nil, nil, err
	}
	stopWebhooks, err := ServeWebhooks(cp.Config, subject)
	if err != nil {
		return nil, nil, errors.Join(err, cp.Stop())
	}
	stop := func() error { return errors.Join(stopWebhooks(), cp.Stop()) }
	attachment, err := Attachment(cp.Config)
	if err != nil {
		return nil, nil, errors.Join(err, stop())
	}
	e, err := Envtest(cp.Config, subject, stop)
	if err != nil {
		return nil, nil, errors.Join(err, stop())
	}
	return e, attachment, nil
}

// Attachment is what a process needs to reach a shared envtest control plane.
func Attachment(cfg *rest.Config) ([]byte, error) {
	return json.Marshal(envtestAttachment{Host: cfg.Host, CA: cfg.CAData, Cert: cfg.CertData, Key: cfg.KeyData, QPS: cfg.QPS, Burst: cfg.Burst})
}

// ConfigOf reaches the control plane that attachment (Attachment's) describes.
func ConfigOf(attachment []byte) (*rest.Config, error) {
	var a envtestAttachment
	if err := json.Unmarshal(attachment, &a); err != nil {
		return nil, fmt.Errorf("read the control plane's attachment: %w", err)
	}
	return &rest.Config{Host: a.Host, TLSClientConfig: rest.TLSClientConfig{CAData: a.CA, CertData: a.Cert, KeyData: a.Key}, QPS: a.QPS, Burst: a.Burst}, nil
}

// Envtest is the envtest tier on the control plane cfg reaches as an administrator: an operator
// in this process for each namespace. stop releases the control plane.
func Envtest(cfg *rest.Config, subject operator.Subject, stop func() error) (Cluster, error) {
	c, err := NewClient(cfg, subject.Scheme)
	if err != nil {
		return nil, err
	}
	return &envtestCluster{config: cfg, client: c, subject: subject, stop: stop}, nil
}

func (e *envtestCluster) Client() client.Client { return e.client }

func (e *envtestCluster) Config() *rest.Config { return e.config }

func (e *envtestCluster) Subject() operator.Subject { return e.subject }

func (e *envtestCluster) RunOperator(namespace string, opts operator.Options) (*operator.Operator, error) {
	return operator.InProcess(e.config, namespace, e.subject, opts)
}

func (e *envtestCluster) Stop() error { return e.stop() }
