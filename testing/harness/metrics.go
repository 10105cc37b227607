package harness

import (
	"context"
	"fmt"
	"time"

	dto "github.com/prometheus/client_model/go"

	"example.com/operator-demo/controllers"
)

// Operator is a running operator, seen through its metrics, that a scenario can stop and start.
type Operator struct {
	metrics        func() ([]*dto.MetricFamily, error)
	up, down, kill func() error
	logs           func() []string
	// shared: one operator serves every spec (e2e); a spec's cleanup leaves it running.
	shared  bool
	running bool
	// base is the counters' reading when the operator last came up: Counts are counted from there.
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

// Up starts the operator (again) and waits until it runs.
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
	if err := WaitFor(context.Background(), 50*time.Millisecond, 30*time.Second, func(context.Context) error {
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

// Kill stops the operator process without warning (kill -9).
func (o *Operator) Kill() error {
	if !o.running {
		return nil
	}
	o.running = false
	return o.kill()
}

// Logs names the files where the operator and the cluster's components log, where there are any.
func (o *Operator) Logs() []string {
	return o.logs()
}

// release is a spec's cleanup: a spec's own operator stops, a shared one is left running.
func (o *Operator) release() error {
	switch {
	case !o.shared:
		return o.Down()
	case !o.running:
		return o.Up()
	}
	return nil
}

func (o *Operator) raw() (Counts, error) {
	families, err := o.metrics()
	if err != nil {
		return Counts{}, err
	}
	// A counter that has not counted yet may not be exported yet: it reads as zero.
	var c Counts
	if r := sum(families, "controller_runtime_reconcile_total", "controller", controllers.ControllerName); r != nil {
		c.Reconciles = *r
	}
	if w := sum(families, controllers.WritesMetric, "", ""); w != nil {
		c.Writes = *w
	}
	return c, nil
}

// sum adds up the counter (or gauge) samples of family name whose label key is value (all when key is "");
// nil when there is no such family.
func sum(families []*dto.MetricFamily, name, key, value string) *float64 {
	var total *float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if key == "" || hasLabel(m, key, value) {
				if total == nil {
					total = new(float64)
				}
				// A sample is a counter or a gauge; the other reads as zero.
				*total += m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	return total
}

func hasLabel(m *dto.Metric, key, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == key && l.GetValue() == value {
			return true
		}
	}
	return false
}

// Sum is the total of the operator's counter or gauge name over the samples whose label key is value (all
// samples when key is ""), and whether the operator exports that counter at all.
func (o *Operator) Sum(name, key, value string) (float64, bool, error) {
	families, err := o.metrics()
	if err != nil {
		return 0, false, err
	}
	total := sum(families, name, key, value)
	if total == nil {
		return 0, false, nil
	}
	return *total, true, nil
}
