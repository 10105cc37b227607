// Package operator is the operator under test, wherever it runs: a manager in the test process
// (the envtest tier), or, through Controls, the operator binary as a process of the test's (the
// local e2e tier, the demo) or a Deployment that only its metrics reach (kind; package e2e). A
// test sees it through its metrics, how many reconciles and how many API writes, and stops,
// starts or kills it where it can.
package operator

import (
	"context"
	"fmt"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"

	"example.com/operator-demo/testing/poll"
)

// Operator is a running operator.
type Operator struct {
	controls Controls
	subject  Subject
	running  bool
	// base is the counters' reading when it last came up: Counts are counted from there.
	base Counts
}

// Controls are how the harness reaches an operator, wherever it runs.
type Controls struct {
	// Metrics gathers its metrics.
	Metrics func() ([]*dto.MetricFamily, error)
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

// Counts is a reading of the operator's counters.
type Counts struct {
	// Reconciles is how many reconciles its controller has finished, whatever their result.
	Reconciles float64
	// Writes is how many API write requests the operator has sent (Subject.WritesMetric).
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
	if err := o.controls.Start(); err != nil {
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

// Release is a spec's cleanup: an operator of the spec's own stops; a shared one is left running,
// started again if the spec stopped it.
func (o *Operator) Release() error {
	switch {
	case !o.controls.Shared:
		return o.Down()
	case !o.running:
		return o.Up()
	}
	return nil
}

// WritesTo is how many API write requests the operator has sent for resource (a kind, or
// kind/subresource), as Subject.WritesMetric counts them: a total of the process the operator
// runs in, to compare with an earlier reading.
func (o *Operator) WritesTo(resource string) (float64, error) {
	n, _, err := o.Sum(o.subject.WritesMetric, "resource", resource)
	return n, err
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

func (o *Operator) raw() (Counts, error) {
	families, err := o.controls.Metrics()
	if err != nil {
		return Counts{}, err
	}
	// A counter that has not counted yet may not be exported yet: it reads as zero.
	reconciles, _ := sum(families, "controller_runtime_reconcile_total", "controller", o.subject.Controller)
	var writes float64
	if o.subject.WritesMetric != "" {
		writes, _ = sum(families, o.subject.WritesMetric, "", "")
	}
	return Counts{Reconciles: reconciles, Writes: writes}, nil
}

// Subject is the operator under test that this one runs.
func (o *Operator) Subject() Subject { return o.subject }

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
