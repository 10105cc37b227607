// Package operator is the operator under test, wherever it runs (a manager in the test process,
// or through its Controls a process or a Deployment), seen through what it does: the reconciles
// its controllers finished (controller-runtime's metrics) and the API writes it sent (counted by
// the harness, never by the operator). A test stops, starts or kills it where it can.
package operator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"example.com/operator-demo/testing/harness/poll"
)

// Setup registers the controllers of the operator under test with its manager, reading the
// spec's Settings where the operator takes any (a clock, say).
type Setup func(ctrl.Manager, Settings) error

// Subject is the operator under test, as a suite describes it to the harness, once, from what its
// cmd/ wires, so that the scenarios run what production runs.
type Subject struct {
	// Scheme knows every kind the operator and its tests read and write.
	Scheme *runtime.Scheme
	// Setup registers the operator's own controllers, as its cmd/ does.
	Setup Setup
	// ManagerOptions applies its cmd/'s manager options over the harness's (nil: none).
	ManagerOptions func(ctrl.Options) ctrl.Options
	// Webhooks registers its webhooks with a manager, as its cmd/ does (nil: none). The harness
	// serves them once for the whole suite, apart from every spec's operator, with the
	// configurations of the directories WebhookManifests installed (default: config/webhook).
	Webhooks         func(ctrl.Manager) error
	WebhookManifests []string
	// CRDs are the directories of the CRDs the control plane installs (default:
	// config/crd/bases). Like WebhookManifests, relative to the repository: each is found in the
	// working directory or the nearest directory above it that holds it.
	CRDs []string
	// Kind is the kind it reconciles (an empty object): a spec's cleanup deletes those objects
	// from the spec's namespace, and waits until they are gone, before the namespace goes.
	Kind client.Object
	// Controller names the controller that reconciles Kind, which Up waits for (default: Kind's
	// kind, lowercased, the name controller-runtime's builder gives a controller not Named).
	Controller string
	// Owned are every kind it creates for them (empty objects). Once the objects of Kind are gone,
	// the cleanup deletes those of these kinds that they owned (where a garbage collector runs, the
	// e2e tier, it leaves that to it) and waits until none of them in the namespace has an owner of
	// Kind or is held, being deleted, by a finalizer.
	Owned []client.Object
}

// Changes change how a spec's operator runs. Only an operator in the test process takes them (the
// e2e tier's is the production binary, as deployed).
type Changes struct {
	// Setup registers other controllers than the subject's own: a stage of a walkthrough, say.
	Setup Setup
	// Settings are what the spec set, for the Subject's Setup to read.
	Settings Settings
	// ClientConfig changes the client configuration its manager connects with: a slower network,
	// say (package cachelag).
	ClientConfig func(*rest.Config) *rest.Config
}

// Setting is what a spec may choose of the operator under test (a clock, say): the suite declares
// it beside its Subject, a spec sets it in Changes.Settings (harness.With), the Subject's Setup
// reads it (In).
//
//	var Clock = operator.NewSetting[clock.PassiveClock](clock.RealClock{})
type Setting[T any] struct{ unset T }

// NewSetting declares a setting, whose value is unset when a spec does not set it.
func NewSetting[T any](unset T) *Setting[T] { return &Setting[T]{unset: unset} }

// In is the setting's value in s: the spec's, or the value it has when unset.
func (o *Setting[T]) In(s Settings) T {
	if v, ok := s[o].(T); ok {
		return v
	}
	return o.unset
}

// Settings are the settings a spec chose for its operator, keyed by their Setting.
type Settings map[any]any

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
	// Writes reads the API writes it has sent, by resource (as CountWrites counts them), from a
	// count that keeps growing (the harness's own, the API server's audit log).
	Writes func() (map[string]float64, error)
	// Start starts it, Stop stops it gracefully and waits, Kill stops it without warning.
	Start, Stop, Kill func() error
	// Logs is what it and the cluster's components logged last, for a failed spec (nil: nothing
	// beside what the spec's output shows).
	Logs func() string
	// ReportWithin bounds Up's wait for its controllers to report (0: a minute, for a replica
	// that leads only once another's lease has expired).
	ReportWithin time.Duration
}

// New is the operator subject that controls reach, not yet started: Up starts it.
func New(subject Subject, controls Controls) *Operator {
	if controls.Writes == nil {
		controls.Writes = func() (map[string]float64, error) {
			return nil, errors.New("nothing counts this operator's API writes: its Controls have no Writes")
		}
	}
	if controls.Logs == nil {
		controls.Logs = func() string { return "" }
	}
	return &Operator{controls: controls, subject: subject}
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
	// Requeued is how many of them asked to be requeued at once (Requeue: true, not RequeueAfter):
	// the rate limiter puts the next pass off, twice as long each time in a row.
	Requeued float64
	// Writes is how many API write requests it sent (as CountWrites counts them); ByResource, how
	// many for each resource, with "/" and the subresource: "configmaps", "deployments/status".
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
		r.Retried - base.Retried, r.Requeued - base.Requeued, r.Writes - base.Writes, minus(r.ByResource, base.ByResource)}
}

// Read reads what the operator has done since it last came up. An operator whose controllers
// report no reconciles, or whose writes nothing counts, is an error, never a zero.
func (o *Operator) Read() (Reading, error) {
	families, err := o.controls.Metrics()
	if err != nil {
		return Reading{}, err
	}
	// controller-runtime exports a controller's count of reconciles as it starts, at zero.
	if _, err := sum(families, reconcileTotal, "", ""); err != nil {
		return Reading{}, fmt.Errorf("%w: none of its controllers has started", err)
	}
	if err := o.started(families); err != nil {
		return Reading{}, err
	}
	writes, err := o.controls.Writes()
	if err != nil {
		return Reading{}, fmt.Errorf("count the operator's API writes: %w", err)
	}
	return reading(families, writes).Minus(o.base), nil
}

// started says why the controller of the Subject's Kind (its Controller) has not started, if it
// has not (with neither a Controller nor a Kind and a Scheme to name it by, any controller will do): another of the operator's controllers
// (a certificate rotator's, which every replica runs, leader or not) may report before it.
// controller-runtime's builder names a controller after the kind it is For, lowercased.
func (o *Operator) started(families []*dto.MetricFamily) error {
	name := o.subject.Controller
	if name == "" {
		if o.subject.Kind == nil || o.subject.Scheme == nil {
			return nil
		}
		gvk, err := apiutil.GVKForObject(o.subject.Kind, o.subject.Scheme)
		if err != nil {
			return fmt.Errorf("name the controller of the kind the operator reconciles: %w", err)
		}
		name = strings.ToLower(gvk.Kind)
	}
	byController := reading(families, nil).ByController
	if _, ok := byController[name]; !ok {
		return fmt.Errorf("its %s controller has not started (those that have: %s)", name, strings.Join(slices.Sorted(maps.Keys(byController)), ", "))
	}
	return nil
}

// Up starts the operator, unless it is running, and waits until its controllers report.
func (o *Operator) Up() error {
	if o.running {
		return nil
	}
	// A process starts its metrics from zero, a manager in this process adds to metrics that live
	// on: a stopped process's metrics read as an error, meaning zero.
	families, _ := o.controls.Metrics()
	writes, _ := o.controls.Writes()
	o.base = reading(families, writes)
	if err := o.controls.Start(); err != nil {
		return err
	}
	o.running = true
	// The controllers export their counts as each starts, once the cache has synced; a replica
	// started after another was killed, once that one's lease has expired and it leads.
	if err := poll.Until(context.Background(), 50*time.Millisecond, cmp.Or(o.controls.ReportWithin, time.Minute), func(context.Context) error {
		_, err := o.Read()
		return err
	}); err != nil {
		return fmt.Errorf("the operator reports nothing once started: %w", err)
	}
	return nil
}

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

// Sum is the total of the operator's counter or gauge name over the samples whose label key is
// value (every sample when key is ""). A metric it does not export is an error, never a zero.
func (o *Operator) Sum(name, key, value string) (float64, error) {
	families, err := o.controls.Metrics()
	if err != nil {
		return 0, err
	}
	return sum(families, name, key, value)
}

// Logs is what the operator and the cluster's components logged last, where the spec's output
// does not show it.
func (o *Operator) Logs() string { return o.controls.Logs() }

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
					case l.GetName() == "result" && l.GetValue() == "requeue":
						r.Requeued += n
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

// sum adds up the samples in families of the counter or gauge name whose label key is value
// (every sample when key is "").
func sum(families []*dto.MetricFamily, name, key, value string) (total float64, err error) {
	i := slices.IndexFunc(families, func(f *dto.MetricFamily) bool { return f.GetName() == name })
	if i < 0 {
		return 0, fmt.Errorf("the operator exports no %s", name)
	}
	for _, m := range families[i].GetMetric() {
		if key == "" || slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == key && l.GetValue() == value }) {
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue() // one of them is 0
		}
	}
	return total, nil
}
