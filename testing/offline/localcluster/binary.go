package localcluster

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/e2e/metrics"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/poll"
	"example.com/operator-demo/testing/offline/process"
)

// Binary is the operator binary run as its Deployment runs it (config/manager's flags, leader
// election among them), as a process of the test's: authenticated by a kubeconfig, serving
// probes and metrics on loopback ports.
type Binary struct {
	// Subject is the operator the binary runs.
	Subject operator.Subject
	// Path is the binary (bin/manager), Kubeconfig the credentials it runs with.
	Path, Kubeconfig string
	// LeaseNamespace holds the leader election Lease.
	LeaseNamespace string
	// Log is the first run's log file; each later run logs beside it.
	Log string
	// MetricsToken is a bearer token that the metrics endpoint lets through.
	MetricsToken string
	// Writes reads the API writes it has sent (the API server's audit log, e2e.AuditWrites).
	Writes func() (map[string]float64, error)
	// ClusterLogs are the cluster's log files, whose end is shown with the operator's for a failed
	// spec.
	ClusterLogs []string
}

// Start starts the binary and waits until it is ready and serves metrics at metricsURL.
func (b Binary) Start() (op *operator.Operator, metricsURL string, err error) {
	r := &run{Binary: b}
	if r.metricsPort, err = process.FreePort(); err != nil {
		return nil, "", err
	}
	if r.probePort, err = process.FreePort(); err != nil {
		return nil, "", err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d/metrics", r.metricsPort)
	op = operator.New(b.Subject, operator.Controls{
		Metrics: func() ([]*dto.MetricFamily, error) { return metrics.Scrape(context.Background(), url, b.MetricsToken) },
		Writes:  b.Writes,
		Start:   r.up,
		Stop:    r.down,
		Kill:    r.kill,
		Logs:    func() string { return e2e.LastLines(append(b.ClusterLogs, r.log), 40) },
	})
	return op, url, op.Up()
}

// run is the binary's current process, on ports that stay the same across restarts.
type run struct {
	Binary
	metricsPort, probePort int
	proc                   *process.Process
	// log is the current process's log file.
	log  string
	runs int
}

// up starts the process and waits until /readyz answers.
func (r *run) up() error {
	r.runs++
	r.log = r.Log
	if r.runs > 1 {
		r.log = strings.TrimSuffix(r.Log, ".log") + fmt.Sprintf("-%d.log", r.runs)
	}
	var err error
	r.proc, err = process.Start("operator", r.log, 30*time.Second, r.Path,
		"--kubeconfig="+r.Kubeconfig,
		"--leader-elect",
		"--leader-election-namespace="+r.LeaseNamespace,
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", r.metricsPort),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", r.probePort),
	)
	if err != nil {
		return err
	}
	ready := fmt.Sprintf("http://127.0.0.1:%d/readyz", r.probePort)
	err = poll.Until(context.Background(), 100*time.Millisecond, 30*time.Second, func(ctx context.Context) error {
		select {
		case <-r.proc.Done():
			return poll.Stop(fmt.Errorf("the operator exited before it was ready, see %s: %w", r.log, r.proc.Err()))
		default:
		}
		code, err := metrics.Status(ctx, ready, "")
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("GET %s: %s", ready, http.StatusText(code))
		}
		return err
	})
	if err != nil {
		r.proc.Kill()
		return fmt.Errorf("the operator is not ready, see %s: %w", r.log, err)
	}
	return nil
}

func (r *run) down() error { return r.proc.Stop() }

func (r *run) kill() error {
	r.proc.Kill()
	return nil
}
