// Package operator is the operator under test, wherever it runs: a manager in the test process
// (the envtest tier), the operator binary as a process of the test's (the local e2e tier, the
// demo), or a Deployment that only its metrics reach (kind). A test sees it through its metrics,
// how many reconciles and how many API writes, and stops, starts or kills it where it can.
package operator

import (
	"context"
	"fmt"
	"time"

	dto "github.com/prometheus/client_model/go"

	"example.com/operator-demo/controllers"
	"example.com/operator-demo/testing/metrics"
	"example.com/operator-demo/testing/poll"
)

// Operator is a running operator.
type Operator struct {
	metrics        func() ([]*dto.MetricFamily, error)
	up, down, kill func() error
	logs           func() []string
	// url is where it serves its metrics; "" in process.
	url string
	// shared: one operator serves every spec (the e2e tier); Release leaves it running.
	shared  bool
	running bool
	// base is the counters' reading when it last came up: Counts are counted from there.
	base Counts
}

// Counts is a reading of the operator's counters.
type Counts struct {
	// Reconciles is how many reconciles the Sample controller has finished, whatever their result.
	Reconciles float64
	// Writes is how many API write requests the operator has sent (controllers.WritesMetric).
	Writes float64
}

// Counts reads the operator's counters, counted from when it last came up.
func (o *Operator) Counts() (Counts, error) {
	raw, err := o.raw()
	if err != nil {
		return Counts{}, err
	}
	return Counts{Reconciles: raw.Reconciles - o.base.Reconciles, Writes: raw.Writes - o.base.Writes}, nil
}

// Up starts the operator (again) and waits until it serves metrics.
func (o *Operator) Up() error {
	// A process that starts again starts its counters from zero; a manager in this process adds
	// to counters that live on. Reading before the start covers both: a stopped process reads as
	// an error, meaning zero.
	o.base, _ = o.raw()
	if err := o.up(); err != nil {
		return err
	}
	o.running = true
	// Ready is not yet serving metrics: the metrics server may start a moment after the probes.
	if err := poll.Until(context.Background(), 50*time.Millisecond, 30*time.Second, func(context.Context) error {
		_, err := o.raw()
		return err
	}); err != nil {
		return fmt.Errorf("the operator serves no metrics once ready: %w", err)
	}
	return nil
}

// Down stops the operator gracefully (SIGTERM, or the manager's context cancelled) and waits.
// An operator that is not running is left as it is.
func (o *Operator) Down() error {
	if !o.running {
		return nil
	}
	o.running = false
	return o.down()
}

// Kill stops the operator without warning (kill -9).
func (o *Operator) Kill() error {
	if !o.running {
		return nil
	}
	o.running = false
	return o.kill()
}

// Release is a spec's cleanup: an operator of the spec's own stops; a shared one is left running,
// started again if the spec stopped it.
func (o *Operator) Release() error {
	switch {
	case !o.shared:
		return o.Down()
	case !o.running:
		return o.Up()
	}
	return nil
}

// Logs names the files where the operator and the cluster's components log, where there are any.
func (o *Operator) Logs() []string { return o.logs() }

// MetricsURL is where the operator serves its metrics; "" for one in the test process.
func (o *Operator) MetricsURL() string { return o.url }

// WritesTo is how many API write requests the operator has sent for resource ("ConfigMap",
// "Sample/status"), as controllers.WritesMetric counts them: a total of the process the operator
// runs in, to compare with an earlier reading.
func (o *Operator) WritesTo(resource string) (float64, error) {
	n, _, err := o.Sum(controllers.WritesMetric, "resource", resource)
	return n, err
}

// Sum is the total of the operator's counter or gauge name over the samples whose label key is
// value (every sample when key is ""), and whether the operator exports it at all.
func (o *Operator) Sum(name, key, value string) (float64, bool, error) {
	families, err := o.metrics()
	if err != nil {
		return 0, false, err
	}
	total, found := metrics.Sum(families, name, key, value)
	return total, found, nil
}

func (o *Operator) raw() (Counts, error) {
	families, err := o.metrics()
	if err != nil {
		return Counts{}, err
	}
	// A counter that has not counted yet may not be exported yet: it reads as zero.
	reconciles, _ := metrics.Sum(families, "controller_runtime_reconcile_total", "controller", controllers.ControllerName)
	writes, _ := metrics.Sum(families, controllers.WritesMetric, "", "")
	return Counts{Reconciles: reconciles, Writes: writes}, nil
}

// Deployed is an operator that runs on its own, as a Deployment of a cluster, reached only
// through its metrics at url (with token as bearer): it cannot be stopped from here.
func Deployed(url, token string) *Operator {
	cannot := func() error {
		return fmt.Errorf("the operator behind %s is a Deployment: the suite neither stops nor starts it", url)
	}
	return &Operator{
		metrics: func() ([]*dto.MetricFamily, error) { return metrics.Scrape(context.Background(), url, token) },
		up:      cannot, down: cannot, kill: cannot,
		logs:    func() []string { return nil },
		url:     url,
		shared:  true,
		running: true,
	}
}
