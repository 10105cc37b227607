package harness

import (
	dto "github.com/prometheus/client_model/go"

	"example.com/operator-demo/controllers"
)

// Operator is a running operator, seen through its metrics.
type Operator struct {
	metrics func() ([]*dto.MetricFamily, error)
	stop    func() error
}

// Reconciles is how many reconciles the Sample controller has finished, whatever their result.
func (o *Operator) Reconciles() (float64, error) {
	return o.sum("controller_runtime_reconcile_total", "controller", controllers.ControllerName)
}

// Writes is how many API write requests the operator has sent (controllers.WritesMetric).
func (o *Operator) Writes() (float64, error) {
	return o.sum(controllers.WritesMetric, "", "")
}

// Stop stops the operator and waits until it has stopped.
func (o *Operator) Stop() error {
	return o.stop()
}

// sum adds up the counter samples of family name whose label key is value (all when key is "").
func (o *Operator) sum(name, key, value string) (float64, error) {
	families, err := o.metrics()
	if err != nil {
		return 0, err
	}
	var total float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if key == "" || hasLabel(m, key, value) {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total, nil
}

func hasLabel(m *dto.Metric, key, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == key && l.GetValue() == value {
			return true
		}
	}
	return false
}
