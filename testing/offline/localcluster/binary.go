package localcluster

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/harness/poll"
)

// binary is the operator binary run as its Deployment runs it (config/manager's flags, leader
// election among them), as a process of the test's: authenticated by a kubeconfig, serving
// probes and metrics on loopback ports, and logging to one file, across its runs.
type binary struct {
	path, kubeconfig, leaseNamespace, log string
	metricsPort, probePort                int
	proc                                  *process
}

// newBinary is path run with kubeconfig, its lease in leaseNamespace, logging to log.
func newBinary(path, kubeconfig, leaseNamespace, log string) (*binary, error) {
	b := &binary{path: path, kubeconfig: kubeconfig, leaseNamespace: leaseNamespace, log: log}
	var err error
	if b.metricsPort, err = freePort(); err != nil {
		return nil, err
	}
	b.probePort, err = freePort()
	return b, err
}

// up starts the process and waits until /readyz answers.
func (b *binary) up() error {
	var err error
	b.proc, err = startProcess("operator", b.log, 30*time.Second, b.path,
		"--kubeconfig="+b.kubeconfig,
		"--leader-elect",
		"--leader-election-namespace="+b.leaseNamespace,
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", b.metricsPort),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", b.probePort),
	)
	if err != nil {
		return err
	}
	ready := fmt.Sprintf("http://127.0.0.1:%d/readyz", b.probePort)
	err = poll.Until(context.Background(), 100*time.Millisecond, 30*time.Second, func(ctx context.Context) error {
		select {
		case <-b.proc.Done():
			return poll.Stop(fmt.Errorf("the operator exited before it was ready, see %s: %w", b.log, b.proc.Err()))
		default:
		}
		code, err := e2e.StatusCode(ctx, ready, "")
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("GET %s: %s", ready, http.StatusText(code))
		}
		return err
	})
	if err != nil {
		b.proc.Kill()
		return fmt.Errorf("the operator is not ready, see %s: %w", b.log, err)
	}
	return nil
}

func (b *binary) down() error { return b.proc.Stop() }

func (b *binary) kill() error {
	b.proc.Kill()
	return nil
}
