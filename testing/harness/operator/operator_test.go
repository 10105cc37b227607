package operator

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

func TestIsCounted(t *testing.T) {
	for _, tt := range []struct {
		group, resource string
		want            bool
	}{
		{"", "configmaps", true},
		{"demo.example.com", "samples/status", true},
		{"", "events", false},
		{"events.k8s.io", "events", false},
		{"coordination.k8s.io", "leases", false},
		{"example.org", "leases", true},
		{"authentication.k8s.io", "tokenreviews", false},
		{"authorization.k8s.io", "subjectaccessreviews", false},
		{"", "", false},
	} {
		if got := IsCounted(tt.group, tt.resource); got != tt.want {
			t.Errorf("IsCounted(%q, %q) = %v, want %v", tt.group, tt.resource, got, tt.want)
		}
	}
}

// TestWritesCountsEveryWriteOfAnyClientThatTheServerTook: every client built from the counted
// configuration has its writes counted; a write the API server refused (Forbidden, AlreadyExists,
// Invalid: an error response) or that never reached it changed nothing and is not counted, nor are
// reads, events and Lease renewals.
func TestWritesCountsEveryWriteOfAnyClientThatTheServerTook(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch path.Base(r.URL.Path) {
		case "forbidden":
			w.WriteHeader(http.StatusForbidden)
		case "exists":
			w.WriteHeader(http.StatusConflict)
		case "invalid":
			w.WriteHeader(http.StatusUnprocessableEntity)
		case "created":
			w.WriteHeader(http.StatusCreated)
		}
	}))
	defer server.Close()
	original := &rest.Config{Host: server.URL}
	counted, writes := CountWrites(original)
	httpClient, err := rest.HTTPClientFor(counted)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/namespaces/ns/configmaps/a"},
		{http.MethodPost, "/api/v1/namespaces/ns/configmaps/created"},
		{http.MethodPatch, "/api/v1/namespaces/ns/configmaps/a"},
		{http.MethodPut, "/api/v1/namespaces/ns/configmaps/a"},
		{http.MethodDelete, "/api/v1/namespaces/ns/configmaps/a"},
		{http.MethodDelete, "/api/v1/namespaces/ns/configmaps/forbidden"},
		{http.MethodPost, "/api/v1/namespaces/ns/configmaps/exists"},
		{http.MethodPut, "/api/v1/namespaces/ns/configmaps/invalid"},
		{http.MethodPatch, "/apis/demo.example.com/v1alpha1/namespaces/ns/samples/a/status"},
		{http.MethodDelete, "/api/v1/namespaces/ns/configmaps"},
		{http.MethodPost, "/api/v1/namespaces/ns/serviceaccounts/b/token"},
		{http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews"},
		{http.MethodPost, "/metrics"},
		{http.MethodPost, "/apis/events.k8s.io/v1/namespaces/ns/events"},
		{http.MethodPut, "/apis/coordination.k8s.io/v1/namespaces/ns/leases/leader"},
	} {
		if err := send(httpClient, r.method, server.URL+r.path); err != nil {
			t.Fatal(err)
		}
	}
	countedUnreachable, unreachableWrites := CountWrites(&rest.Config{Host: "http://127.0.0.1:1"})
	unreachable, err := rest.HTTPClientFor(countedUnreachable)
	if err != nil {
		t.Fatal(err)
	}
	if err := send(unreachable, http.MethodPost, "http://127.0.0.1:1/api/v1/namespaces/ns/configmaps"); err == nil || !strings.Contains(err.Error(), "dial tcp") {
		t.Fatalf("a write to a closed port: %v, want the error of its connection", err)
	}
	if got, err := unreachableWrites(); err != nil || len(got) > 0 {
		t.Errorf("counted %v, %v for a write that reached no server", got, err)
	}
	sendThrough(t, original, http.MethodPost, server.URL+"/api/v1/namespaces/ns/configmaps/created") // left as it was: not counted
	want := map[string]float64{"configmaps": 5, "samples/status": 1, "serviceaccounts/token": 1}
	if got, err := writes(); err != nil || !maps.Equal(got, want) {
		t.Errorf("counted %v, want %v (a create, a patch, an update, a delete, a delete of a collection; a status patch; a token's create; no refused write, none unsent, none of a client of the configuration it was given, no read, no event, no Lease, no review, nothing outside the resource API)", got, want)
	}
}

// sendThrough sends a request without a body through a client of cfg, which must succeed.
func sendThrough(t *testing.T, cfg *rest.Config, method, url string) {
	t.Helper()
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := send(c, method, url); err != nil {
		t.Fatal(err)
	}
}

// send sends a request without a body through c.
func send(c *http.Client, method, url string) error {
	req, err := http.NewRequestWithContext(context.Background(), method, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// TestAnOperatorThatCannotBeCountedIsAnError: what the harness cannot see it does not read as zero.
func TestAnOperatorThatCannotBeCountedIsAnError(t *testing.T) {
	reconciles := prometheus.NewCounterVec(prometheus.CounterOpts{Name: reconcileTotal}, []string{"controller", "result"})
	withReconciles := prometheus.NewRegistry()
	withReconciles.MustRegister(reconciles)
	reconciles.WithLabelValues("widget", "success").Inc()
	noWrites := func() (map[string]float64, error) { return map[string]float64{}, nil }
	refused := func() ([]*dto.MetricFamily, error) { return nil, errors.New("connection refused") }
	for name, tt := range map[string]struct {
		controls Controls
		want     string
	}{
		"no controller reports":  {Controls{Metrics: prometheus.NewRegistry().Gather, Writes: noWrites}, "exports no controller_runtime_reconcile_total: none of its controllers has started"},
		"nothing counts writes":  {Controls{Metrics: withReconciles.Gather}, "count the operator's API writes: nothing counts this operator's API writes"},
		"its metrics unreadable": {Controls{Metrics: refused, Writes: noWrites}, "connection refused"},
	} {
		if _, err := New(Subject{}, tt.controls).Read(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Read = %v, want an error saying %q", name, err, tt.want)
		}
	}
	if n, err := New(Subject{}, Controls{Metrics: refused}).Sum(reconcileTotal, "", ""); err == nil || n != 0 || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Sum of an operator whose metrics cannot be read = %v, %v; want 0 and the error that its metrics cannot be read", n, err)
	}
	if counts, err := New(Subject{}, Controls{Metrics: withReconciles.Gather, Writes: noWrites}).Read(); err != nil || counts.Reconciles != 1 {
		t.Errorf("Read = %+v, %v; want 1 reconcile", counts, err)
	}
}

func TestSettingsAreReadAsTheSpecSetThem(t *testing.T) {
	limit := NewSetting(10)
	settings := Settings{}
	if got := limit.In(settings); got != 10 {
		t.Errorf("unset: %d, want 10", got)
	}
	settings[limit] = 3
	if got := limit.In(settings); got != 3 {
		t.Errorf("set to 3: %d", got)
	}
}

// TestUpWaitsUntilTheControllersReport: a manager's controllers start a moment after its cache
// has synced, and export their counts only then (a standby replica's, once it leads). Up returns
// once they do, so that a spec's first reading right after it is a count, not an error.
func TestUpWaitsUntilTheControllersReport(t *testing.T) {
	reconciles := prometheus.NewCounterVec(prometheus.CounterOpts{Name: reconcileTotal}, []string{"controller", "result"})
	registry := prometheus.NewRegistry()
	gathers := 0
	op := New(Subject{}, Controls{
		Metrics: func() ([]*dto.MetricFamily, error) {
			if gathers++; gathers == 4 { // the controllers start a few readings after the start
				reconciles.WithLabelValues("widget", "success").Add(0)
				registry.MustRegister(reconciles)
			}
			return registry.Gather()
		},
		Writes: func() (map[string]float64, error) { return map[string]float64{}, nil },
		Start:  func() error { return nil },
	})
	if err := op.Up(); err != nil {
		t.Fatalf("Up: %v", err)
	}
	if counts, err := op.Read(); err != nil || counts.Reconciles != 0 {
		t.Errorf("Read right after Up = %+v, %v; want 0 reconciles, no error", counts, err)
	}
}

// TestUpWaitsForTheControllerOfTheKindItReconciles: another of the operator's controllers (a
// certificate rotator's, which every replica runs, leader or not) may report before the one that
// reconciles the Subject's Kind, named after it as controller-runtime's builder names it: the
// operator is not up, nor read, until that one reports. A Subject whose controller has another
// name says which (Controller).
func TestUpWaitsForTheControllerOfTheKindItReconciles(t *testing.T) {
	reconciles := prometheus.NewCounterVec(prometheus.CounterOpts{Name: reconcileTotal}, []string{"controller", "result"})
	registry := prometheus.NewRegistry()
	registry.MustRegister(reconciles)
	reconciles.WithLabelValues("cert-rotator", "success").Inc()
	op := New(Subject{Kind: &corev1.ConfigMap{}, Scheme: clientgoscheme.Scheme}, Controls{
		Metrics: registry.Gather,
		Writes:  func() (map[string]float64, error) { return map[string]float64{}, nil },
	})
	if _, err := op.Read(); err == nil || !strings.Contains(err.Error(), "its configmap controller has not started (those that have: cert-rotator)") {
		t.Errorf("Read with the rotator's controller alone reporting = %v, want an error saying the configmap controller has not started", err)
	}
	reconciles.WithLabelValues("configmap", "success").Add(0)
	if counts, err := op.Read(); err != nil || counts.ByController["cert-rotator"] != 1 {
		t.Errorf("Read once the configmap controller reports = %+v, %v; want the rotator's reconcile among its counts", counts, err)
	}
	named := New(Subject{Kind: &corev1.ConfigMap{}, Scheme: clientgoscheme.Scheme, Controller: "marker"}, Controls{
		Metrics: registry.Gather,
		Writes:  func() (map[string]float64, error) { return map[string]float64{}, nil },
	})
	if _, err := named.Read(); err == nil || !strings.Contains(err.Error(), "its marker controller has not started (those that have: cert-rotator, configmap)") {
		t.Errorf("Read of a Subject whose Controller is marker, before marker reports = %v, want an error saying marker has not started", err)
	}
	reconciles.WithLabelValues("marker", "success").Add(0)
	if _, err := named.Read(); err != nil {
		t.Errorf("Read once marker reports = %v", err)
	}
}

// TestAnOperatorThatNeverReportsFailsUp: an operator whose controllers export no counts within
// ReportWithin of its start fails Up, saying so and why.
func TestAnOperatorThatNeverReportsFailsUp(t *testing.T) {
	op := New(Subject{}, Controls{
		Metrics:      prometheus.NewRegistry().Gather,
		Writes:       func() (map[string]float64, error) { return map[string]float64{}, nil },
		Start:        func() error { return nil },
		ReportWithin: 200 * time.Millisecond,
	})
	err := op.Up()
	if err == nil || !strings.Contains(err.Error(), "the operator reports nothing once started") || !strings.Contains(err.Error(), "exports no "+reconcileTotal) {
		t.Errorf("Up = %v, want an error saying the operator reports nothing once started, and why", err)
	}
}

// TestReadIsWhatTheOperatorDidSinceItLastCameUp: a manager in the test process adds to metrics
// that live on, so a reading counts from the operator's last Up: its reconciles, by controller,
// those retried (an error, not a terminal one), those requeued at once, and its writes, by
// resource. Up and Down act once
// whatever the calls, and Sum totals a metric from the operator's start.
func TestReadIsWhatTheOperatorDidSinceItLastCameUp(t *testing.T) {
	reconciles := prometheus.NewCounterVec(prometheus.CounterOpts{Name: reconcileTotal}, []string{"controller", "result"})
	terminal := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_terminal_reconcile_errors_total"}, []string{"controller"})
	workers := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "controller_runtime_active_workers"}, []string{"controller"})
	registry := prometheus.NewRegistry()
	registry.MustRegister(reconciles, terminal, workers)
	writes := map[string]float64{"configmaps": 2}
	starts, stops := 0, 0
	op := New(Subject{Kind: &corev1.ConfigMap{}}, Controls{
		Metrics: registry.Gather,
		Writes:  func() (map[string]float64, error) { return maps.Clone(writes), nil },
		Start:   func() error { starts++; return nil },
		Stop:    func() error { stops++; return nil },
	})
	reconciles.WithLabelValues("widget", "success").Add(5) // before it came up
	reconciles.WithLabelValues("gadget", "requeue").Inc()
	if err := errors.Join(op.Up(), op.Up()); err != nil {
		t.Fatalf("Up: %v", err)
	}
	reconciles.WithLabelValues("widget", "success").Inc()
	reconciles.WithLabelValues("widget", "error").Add(3)
	terminal.WithLabelValues("widget").Inc()
	reconciles.WithLabelValues("gadget", "requeue").Add(2)
	workers.WithLabelValues("widget").Set(2)
	writes["configmaps"]++
	writes["samples/status"] = 4
	want := Reading{Reconciles: 6, ByController: map[string]float64{"widget": 4, "gadget": 2}, Retried: 2, Requeued: 2,
		Writes: 5, ByResource: map[string]float64{"configmaps": 1, "samples/status": 4}}
	if got, err := op.Read(); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Read = %+v, %v; want %+v", got, err, want)
	}
	sums(t, op)
	if err := errors.Join(op.Down(), op.Down()); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if err := op.Kill(); err != nil || starts != 1 || stops != 1 {
		t.Errorf("two Ups, two Downs and a Kill of the stopped operator: %d starts, %d stops, Kill %v; want 1, 1, nil", starts, stops, err)
	}
	if err := op.Up(); err != nil {
		t.Fatalf("Up again: %v", err)
	}
	if got, err := op.Read(); err != nil || got.Reconciles != 0 || got.Writes != 0 || len(got.ByController)+len(got.ByResource) > 0 {
		t.Errorf("Read once up again = %+v, %v; want nothing", got, err)
	}
	if op.Logs() != "" || op.Subject().Kind == nil {
		t.Errorf("Logs %q, Subject %+v; want nothing logged, the subject it runs", op.Logs(), op.Subject())
	}
}

// TestAnOperatorThatFailsToStartIsNotRunning: Up says why, and the next Up starts it again.
func TestAnOperatorThatFailsToStartIsNotRunning(t *testing.T) {
	starts := 0
	op := New(Subject{}, Controls{Metrics: prometheus.NewRegistry().Gather, Start: func() error { starts++; return errors.New("no such binary") }, Stop: func() error {
		t.Error("Down stopped an operator that never started")
		return nil
	}})
	for range 2 {
		if err := op.Up(); err == nil || err.Error() != "no such binary" {
			t.Errorf("Up = %v, want Start's error", err)
		}
	}
	if err := op.Down(); err != nil || starts != 2 {
		t.Errorf("Down = %v after %d starts; want nil after 2", err, starts)
	}
}

// sums checks op's Sum of TestReadIsWhatTheOperatorDidSinceItLastCameUp's metrics: from its start.
func sums(t *testing.T, op *Operator) {
	t.Helper()
	for _, tt := range []struct {
		name, key, value string
		want             float64
	}{
		{reconcileTotal, "controller", "widget", 9},
		{reconcileTotal, "", "", 12},
		{"controller_runtime_active_workers", "controller", "widget", 2},
	} {
		if got, err := op.Sum(tt.name, tt.key, tt.value); err != nil || got != tt.want {
			t.Errorf("Sum(%s, %q, %q) = %v, %v; want %v", tt.name, tt.key, tt.value, got, err, tt.want)
		}
	}
	if n, err := op.Sum("widgets_total", "", ""); err == nil || n != 0 || !strings.Contains(err.Error(), "exports no widgets_total") {
		t.Errorf("Sum of a metric it does not export = %v, %v; want 0 and an error naming it", n, err)
	}
}
