// Package operator is the operator under test, wherever it runs: a manager in the test process
// (the envtest tier), or, through its Controls, a process or a Deployment. A test sees it through
// what it does: the reconciles its controllers finished (controller-runtime's metrics) and the API
// writes it sent (counted by the harness, never by the operator); and stops, starts or kills it
// where it can.
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
	base     Reading // when it last came up
}

// Controls are how the harness reaches an operator, wherever it runs.
type Controls struct {
	// Metrics gathers its metrics: controller-runtime's, where its reconciles are counted.
	Metrics func() ([]*dto.MetricFamily, error)
	// Writes reads the API writes it has sent, by resource (as Writes counts them), from a count
	// that keeps growing (the harness's own, the API server's audit log).
	Writes func() (map[string]float64, error)
	// Start starts it, Stop stops it gracefully and waits, Kill stops it without warning.
	Start, Stop, Kill func() error
	// Logs is what it and the cluster's components logged last, for a failed spec (nil: nothing
	// beside what the spec's output shows).
	Logs func() string
	// Shared: one operator serves every spec (the e2e tier); Release leaves it running.
	Shared bool
	// Running: it runs already, on its own (a Deployment): Up is not needed.
	Running bool
}

// New is the operator subject that controls reach, not yet started unless controls say it is
// Running: Up starts it.
func New(subject Subject, controls Controls) *Operator {
	if controls.Writes == nil {
		controls.Writes = func() (map[string]float64, error) {
			return nil, errors.New("nothing counts this operator's API writes: its Controls have no Writes")
		}
	}
	return &Operator{controls: controls, subject: subject, running: controls.Running}
}

// Reading is what an operator has done since it last came up (Operator.Read).
type Reading struct {
	// Reconciles is how many reconciles its controllers finished, whatever their result;
	// ByController, how many each did, by the controller's name.
	Reconciles   float64
	ByController map[string]float64
	// Retried is how many of them ended in an error that is retried (not a terminal one): a retry
	// may be due, with a backoff, that no count shows yet. A requeue is not an error.
	Retried float64
	// Writes is how many API write requests it sent (as Writes counts them); ByResource, how many
	// for each resource, with "/" and the subresource: "configmaps", "deployments/status".
	Writes     float64
	ByResource map[string]float64
}

// Minus is what r counts beyond base, leaving out the keys whose count did not move.
func (r Reading) Minus(base Reading) Reading {
	minus := func(now, then map[string]float64) map[string]float64 {
		out := map[string]float64{}
		for key, n := range now {
			if n != then[key] {
				out[key] = n - then[key]
			}
		}
		return out
	}
	return Reading{r.Reconciles - base.Reconciles, minus(r.ByController, base.ByController),
		r.Retried - base.Retried, r.Writes - base.Writes, minus(r.ByResource, base.ByResource)}
}

// Read reads what the operator has done since it last came up. An operator whose controllers
// report no reconciles, or whose writes nothing counts, is an error, never a zero.
func (o *Operator) Read() (Reading, error) {
	families, err := o.controls.Metrics()
	if err != nil {
		return Reading{}, err
	}
	// controller-runtime exports a controller's count of reconciles as it starts, at zero.
	if _, found := sum(families, reconcileTotal, "", ""); !found {
		return Reading{}, fmt.Errorf("the operator exports no %s: none of its controllers has started", reconcileTotal)
	}
	writes, err := o.controls.Writes()
	if err != nil {
		return Reading{}, fmt.Errorf("count the operator's API writes: %w", err)
	}
	return reading(families, writes).Minus(o.base), nil
}

// Up starts the operator (again) and waits until its controllers report.
func (o *Operator) Up() error {
	// A process starts its metrics from zero, a manager in this process adds to metrics that live
	// on: a stopped process's metrics read as an error, meaning zero.
	families, _ := o.controls.Metrics()
	writes, _ := o.controls.Writes()
	o.base = reading(families, writes)
	if err := o.controls.Start(); err != nil {
		return err
	}
	o.running = true
	// The controllers export their counts as each starts, once the cache has synced (a standby
	// replica's, once it leads).
	if err := poll.Until(context.Background(), 50*time.Millisecond, upWithin, func(context.Context) error {
		_, err := o.Read()
		return err
	}); err != nil {
		return fmt.Errorf("the operator reports nothing once started: %w", err)
	}
	return nil
}

// upWithin bounds how long Up waits for the controllers to report: a replica started after
// another was killed leads only once that one's lease has expired.
const upWithin = time.Minute

// Down stops the operator gracefully (SIGTERM, or the manager's context cancelled) and waits.
// An operator that is not running is left as it is.
func (o *Operator) Down() error { return o.stop(o.controls.Stop) }

// Kill stops the operator without warning (kill -9).
func (o *Operator) Kill() error { return o.stop(o.controls.Kill) }

func (o *Operator) stop(how func() error) error {
	if !o.running {
		return nil
	}
	o.running = false
	return how()
}

// Resume starts the operator again if it was stopped.
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

// Logs is what the operator and the cluster's components logged last, where the spec's output
// does not show it.
func (o *Operator) Logs() string {
	if o.controls.Logs == nil {
		return ""
	}
	return o.controls.Logs()
}

// Subject is the operator under test that this one runs.
func (o *Operator) Subject() Subject { return o.subject }

// reconcileTotal is controller-runtime's count of finished reconciles, by controller and result.
const reconcileTotal = "controller_runtime_reconcile_total"

// reading is what families and writes count, from when the operator's process started.
func reading(families []*dto.MetricFamily, writes map[string]float64) Reading {
	r := Reading{ByController: map[string]float64{}, ByResource: writes}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			n := m.GetCounter().GetValue()
			switch f.GetName() {
			case reconcileTotal:
				r.Reconciles += n
				for _, l := range m.GetLabel() {
					switch {
					case l.GetName() == "controller":
						r.ByController[l.GetValue()] += n
					case l.GetName() == "result" && l.GetValue() == "error":
						r.Retried += n
					}
				}
			case "controller_runtime_terminal_reconcile_errors_total":
				r.Retried -= n
			}
		}
	}
	for _, n := range writes {
		r.Writes += n
	}
	return r
}

// sum adds up the samples of the counter or gauge called name whose label key is value (every
// sample when key is ""), and says whether the operator exports it at all.
func sum(families []*dto.MetricFamily, name, key, value string) (total float64, found bool) {
	i := slices.IndexFunc(families, func(f *dto.MetricFamily) bool { return f.GetName() == name })
	if i < 0 {
		return 0, false
	}
	for _, m := range families[i].GetMetric() {
		if key == "" || slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == key && l.GetValue() == value }) {
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue() // one of them is 0
		}
	}
	return total, true
}
