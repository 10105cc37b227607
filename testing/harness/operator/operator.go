// Package operator is the operator under test, wherever it runs: a manager in the test process
// (the envtest tier), or, through Controls, the operator binary as a process of the test's (the
// demo, make test-first, the local e2e tier) or a Deployment (the kind e2e tier; package e2e). A test sees it through what it
// does: how many reconciles its controllers finished (controller-runtime's metrics) and how many
// API writes it sent (counted by the harness, never by the operator), and stops, starts or kills
// it where it can.
package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"

	"example.com/operator-demo/testing/harness/poll"
)

// Operator is a running operator.
type Operator struct {
	controls Controls
	subject  Subject
	running  bool
	// base is the reading when it last came up: what it reports is counted from there.
	base reading
}

// Controls are how the harness reaches an operator, wherever it runs.
type Controls struct {
	// Metrics gathers its metrics: controller-runtime's, where its reconciles are counted.
	Metrics func() ([]*dto.MetricFamily, error)
	// Writes reads the API writes it has sent, by resource (as Writes counts them), from a count
	// that keeps growing: the harness's own count of an operator in the test process, the API
	// server's audit log for one deployed.
	Writes func() (map[string]float64, error)
	// Start starts it, Stop stops it gracefully and waits, Kill stops it without warning.
	Start, Stop, Kill func() error
	// Logs names the files where it and the cluster's components log.
	Logs func() []string
	// URL is where it serves its metrics; "" in the test process.
	URL string
	// Shared: one operator serves every spec (the e2e tier); Release leaves it running.
	Shared bool
	// Running: it runs already, on its own (a Deployment): Up is not needed.
	Running bool
}

// New is the operator subject that controls reach, not yet started unless controls say it is
// Running: Up starts it.
func New(subject Subject, controls Controls) *Operator {
	return &Operator{controls: controls, subject: subject, running: controls.Running}
}

// Counts is a reading of what the operator has done.
type Counts struct {
	// Reconciles is how many reconciles its controllers have finished, whatever their result.
	Reconciles float64
	// Writes is how many API write requests it has sent (as Writes counts them).
	Writes float64
}

// reading is what the harness reads of the operator at once: its reconciles, in all and by
// controller, how many of them ended in an error that is retried, and its writes by resource.
type reading struct {
	reconciles, retries float64
	byController        map[string]float64
	writes              map[string]float64
}

// since reads the operator, counted from when it last came up.
func (o *Operator) since() (reading, error) {
	r, err := o.read()
	if err != nil {
		return reading{}, err
	}
	return reading{r.reconciles - o.base.reconciles, r.retries - o.base.retries, minus(r.byController, o.base.byController), minus(r.writes, o.base.writes)}, nil
}

// minus is each count of now less the count of the same key in then.
func minus(now, then map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(now))
	for key, n := range now {
		out[key] = n - then[key]
	}
	return out
}

// Counts reads what the operator has done since it last came up.
func (o *Operator) Counts() (Counts, error) {
	r, err := o.since()
	return Counts{Reconciles: r.reconciles, Writes: total(r.writes)}, err
}

// Retries is how many of its reconciles since it last came up ended in an error that is retried
// (not a terminal one): while any did, a retry may be scheduled, with a backoff, that no count
// shows yet. A reconcile that asked to be requeued ended: its requeue is a reconcile to come when
// it asked, as a watch event is.
func (o *Operator) Retries() (float64, error) {
	r, err := o.since()
	return r.retries, err
}

// ReconcilesByController is how many reconciles each of its controllers has finished since it
// last came up, by the controller's name (the kind it reconciles, in lower case, unless named).
func (o *Operator) ReconcilesByController() (map[string]float64, error) {
	r, err := o.since()
	return r.byController, err
}

// WritesByResource is how many API write requests the operator has sent for each resource (as
// the API names it, with "/" and the subresource, if any: "configmaps", "samples/status") since
// it last came up.
func (o *Operator) WritesByResource() (map[string]float64, error) {
	r, err := o.since()
	return r.writes, err
}

// WritesTo is how many API write requests the operator has sent for resource since it last came up.
func (o *Operator) WritesTo(resource string) (float64, error) {
	writes, err := o.WritesByResource()
	return writes[resource], err
}

// Up starts the operator (again) and waits until its controllers report.
func (o *Operator) Up() error {
	// A process that starts again starts its metrics from zero; a manager in this process adds
	// to metrics that live on, and the writes are counted apart from either. Reading each before
	// the start covers all: a stopped process's metrics read as an error, meaning zero.
	o.base = reading{}
	if families, err := o.controls.Metrics(); err == nil {
		o.base = reconciles(families)
	}
	if o.controls.Writes != nil {
		o.base.writes, _ = o.controls.Writes()
	}
	if err := o.controls.Start(); err != nil {
		return err
	}
	o.running = true
	// Ready is not yet reporting: the metrics server may start a moment after the probes, and the
	// controllers after the cache has synced (a standby replica's, once it leads), each exporting
	// its counts as it starts. Only the metrics are read meanwhile: counting the writes may cost
	// more than a spec that catches the operator mid-run can wait.
	if err := poll.Until(context.Background(), 50*time.Millisecond, upWithin, func(context.Context) error {
		families, err := o.controls.Metrics()
		if err == nil {
			err = controllersReport(families)
		}
		return err
	}); err != nil {
		return fmt.Errorf("the operator reports nothing once started: %w", err)
	}
	return nil
}

// upWithin bounds how long Up waits for the controllers to report: a replica started after
// another was killed leads only once that one's lease has expired.
const upWithin = time.Minute

// controllersReport is an error unless some controller of the operator exports its count of
// reconciles, which controller-runtime does as each starts, at zero.
func controllersReport(families []*dto.MetricFamily) error {
	if _, found := sum(families, reconcileTotal, "", ""); !found {
		return fmt.Errorf("the operator exports no %s: none of its controllers has started", reconcileTotal)
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
	return o.controls.Stop()
}

// Kill stops the operator without warning (kill -9).
func (o *Operator) Kill() error {
	if !o.running {
		return nil
	}
	o.running = false
	return o.controls.Kill()
}

// Resume starts the operator again if it was stopped: a spec's cleanup deletes the spec's objects
// with the operator running, so that it honours its finalizers.
func (o *Operator) Resume() error {
	if o.running {
		return nil
	}
	return o.Up()
}

// Release is a spec's cleanup: an operator of the spec's own stops; a shared one is left running,
// started again if the spec stopped it.
func (o *Operator) Release() error {
	if o.controls.Shared {
		return o.Resume()
	}
	return o.Down()
}

// Sum is the total of the operator's counter or gauge name over the samples whose label key is
// value (every sample when key is ""), and whether the operator exports it at all.
func (o *Operator) Sum(name, key, value string) (float64, bool, error) {
	families, err := o.controls.Metrics()
	if err != nil {
		return 0, false, err
	}
	total, found := sum(families, name, key, value)
	return total, found, nil
}

// Logs names the files where the operator and the cluster's components log, where there are any.
func (o *Operator) Logs() []string { return o.controls.Logs() }

// MetricsURL is where the operator serves its metrics; "" for one in the test process.
func (o *Operator) MetricsURL() string { return o.controls.URL }

// Subject is the operator under test that this one runs.
func (o *Operator) Subject() Subject { return o.subject }

// reconcileTotal is controller-runtime's count of finished reconciles, by controller and result.
const reconcileTotal = "controller_runtime_reconcile_total"

// read reads the operator's counts. It fails rather than read a zero it cannot see: an operator
// whose controllers report no reconciles, or whose writes nothing counts, is an error.
func (o *Operator) read() (reading, error) {
	families, err := o.controls.Metrics()
	if err != nil {
		return reading{}, err
	}
	if err := controllersReport(families); err != nil {
		return reading{}, err
	}
	if o.controls.Writes == nil {
		return reading{}, errors.New("nothing counts this operator's API writes: its Controls have no Writes")
	}
	writes, err := o.controls.Writes()
	if err != nil {
		return reading{}, fmt.Errorf("count the operator's API writes: %w", err)
	}
	r := reconciles(families)
	r.writes = writes
	return r, nil
}

// reconciles reads how many reconciles the operator's controllers have finished, in all and by
// controller, and how many of those ended in an error that is retried.
func reconciles(families []*dto.MetricFamily) reading {
	r := reading{byController: map[string]float64{}}
	r.reconciles, _ = sum(families, reconcileTotal, "", "")
	failed, _ := sum(families, reconcileTotal, "result", "error")
	terminal, _ := sum(families, "controller_runtime_terminal_reconcile_errors_total", "", "")
	r.retries = failed - terminal
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if f.GetName() == reconcileTotal && l.GetName() == "controller" {
					r.byController[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return r
}

// total is the sum of the writes to each resource.
func total(writes map[string]float64) float64 {
	var n float64
	for _, w := range writes {
		n += w
	}
	return n
}

// sum adds up the samples of the counter or gauge called name whose label key is value (every
// sample when key is ""), and says whether there is such a family at all.
func sum(families []*dto.MetricFamily, name, key, value string) (float64, bool) {
	var total float64
	found := false
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if key == "" || slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == key && l.GetValue() == value }) {
				found = true
				// A sample is a counter or a gauge; the other reads as zero.
				total += m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	return total, found
}
