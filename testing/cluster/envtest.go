package cluster

import (
	"errors"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/operator"
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

// startEnvtest attaches to the warm control plane when one is up (make envtest-up), else starts
// a control plane of this run's own.
func startEnvtest(subject operator.Subject) (*envtestCluster, []byte, error) {
	warm, crdDir, err := warmFileIn()
	if err != nil {
		return nil, nil, err
	}
	if e, attachment, err := attachWarm(warm, crdDir, subject); e != nil || err != nil {
		return e, attachment, err
	}
	cp, err := controlplane.Start("")
	if err != nil {
		return nil, nil, err
	}
	cfg := cp.Config
	attachment, err := Attachment(cfg)
	if err != nil {
		return nil, nil, errors.Join(err, cp.Stop())
	}
	e, err := newEnvtest(cfg, subject, cp.Stop)
	if err != nil {
		return nil, nil, errors.Join(err, cp.Stop())
	}
	return e, attachment, nil
}

func newEnvtest(cfg *rest.Config, subject operator.Subject, stop func() error) (*envtestCluster, error) {
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
