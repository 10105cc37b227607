package operator

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
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
	counted, writes := CountWrites(&rest.Config{Host: server.URL})
	httpClient, err := rest.HTTPClientFor(counted)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/namespaces/ns/configmaps/a"},
		{http.MethodPost, "/api/v1/namespaces/ns/configmaps/created"},
		{http.MethodPatch, "/api/v1/namespaces/ns/configmaps/a"},
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
	if err := send(unreachable, http.MethodPost, "http://127.0.0.1:1/api/v1/namespaces/ns/configmaps"); err == nil {
		t.Fatal("a write to a closed port reached a server")
	}
	if got, err := unreachableWrites(); err != nil || len(got) > 0 {
		t.Errorf("counted %v, %v for a write that reached no server", got, err)
	}
	want := map[string]float64{"configmaps": 3, "samples/status": 1, "serviceaccounts/token": 1}
	if got, err := writes(); err != nil || !maps.Equal(got, want) {
		t.Errorf("counted %v, want %v (a create, a patch, a delete of a collection; a status patch; a token's create; no refused write, none unsent, no read, no event, no Lease, no review, nothing outside the resource API)", got, want)
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
	for name, tt := range map[string]struct {
		controls Controls
		want     string
	}{
		"no controller reports": {Controls{Metrics: prometheus.NewRegistry().Gather, Writes: noWrites}, "exports no controller_runtime_reconcile_total"},
		"nothing counts writes": {Controls{Metrics: withReconciles.Gather}, "nothing counts this operator's API writes"},
	} {
		if _, err := New(Subject{}, tt.controls).Read(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Read = %v, want an error saying %q", name, err, tt.want)
		}
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
