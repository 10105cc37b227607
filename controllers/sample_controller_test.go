package controllers

import (
	"context"
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// fakeAPI is a fake API server (controller-runtime's fake client) that records every write the
// reconciler sends and fails the calls named in faults.
type fakeAPI struct {
	client.Client
	writes []string
	faults map[string]error
	events *events.FakeRecorder
}

// call names an API call as "<verb> <Kind>[/<subresource>]", e.g. "patch Sample/status".
func call(c client.Client, verb string, obj client.Object, sub string) string {
	gvk, _ := c.GroupVersionKindFor(obj)
	if sub != "" {
		return fmt.Sprintf("%s %s/%s", verb, gvk.Kind, sub)
	}
	return fmt.Sprintf("%s %s", verb, gvk.Kind)
}

func newFakeAPI(t testing.TB, objs ...client.Object) *fakeAPI {
	t.Helper()
	api := &fakeAPI{faults: map[string]error{}, events: events.NewFakeRecorder(10)}
	write := func(c client.Client, verb string, obj client.Object, sub string) error {
		name := call(c, verb, obj, sub)
		api.writes = append(api.writes, name)
		return api.faults[name]
	}
	api.Client = fake.NewClientBuilder().
		WithScheme(NewScheme()).
		WithObjects(objs...).
		WithStatusSubresource(&demov1alpha1.Sample{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if err := api.faults[call(c, "get", obj, "")]; err != nil {
					return err
				}
				return c.Get(ctx, key, obj, opts...)
			},
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if err := write(c, "create", obj, ""); err != nil {
					return err
				}
				return c.Create(ctx, obj, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if err := write(c, "update", obj, ""); err != nil {
					return err
				}
				return c.Update(ctx, obj, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				if err := write(c, "patch", obj, ""); err != nil {
					return err
				}
				return c.Patch(ctx, obj, patch, opts...)
			},
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				if err := write(c, "update", obj, sub); err != nil {
					return err
				}
				return c.SubResource(sub).Update(ctx, obj, opts...)
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				if err := write(c, "patch", obj, sub); err != nil {
					return err
				}
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
		}).
		Build()
	return api
}

// reconcile runs one pass over the Sample team-a/greeting, with api as the cache and the API reader.
func (api *fakeAPI) reconcile(t testing.TB) (ctrl.Result, error) {
	t.Helper()
	api.writes = nil
	r := &SampleReconciler{Client: api, APIReader: api, Recorder: api.events}
	return r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}})
}

// converged runs passes until one sends no write, and fails if that takes more than three.
func (api *fakeAPI) converged(t testing.TB) {
	t.Helper()
	for range 3 {
		if _, err := api.reconcile(t); err != nil {
			t.Fatalf("reconcile: %v", err)
		}
		if len(api.writes) == 0 {
			return
		}
	}
	t.Fatalf("still writing after 3 passes: %v", api.writes)
}

func (api *fakeAPI) configMap(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := api.Get(context.Background(), client.ObjectKey{Namespace: "team-a", Name: "greeting-config"}, cm); err != nil {
		t.Fatalf("get ConfigMap: %v", err)
	}
	return cm
}

func wantWrites(t *testing.T, api *fakeAPI, want ...string) {
	t.Helper()
	if fmt.Sprint(api.writes) != fmt.Sprint(want) {
		t.Errorf("writes = %q, want %q", api.writes, want)
	}
}

func TestReconcileCreatesTheConfigMapThenRests(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))

	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "create ConfigMap", "patch Sample/status")
	if got := api.configMap(t).Data[demov1alpha1.MessageKey]; got != "hello world" {
		t.Errorf("data.message = %q", got)
	}
	if got := <-api.events.Events; got != "Normal Created created ConfigMap greeting-config" {
		t.Errorf("event %q", got)
	}

	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("second reconcile: %v", err)
	}
	wantWrites(t, api /* none: everything is as desired */)
}

func TestReconcileRestoresDriftWithOneWrite(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	api.converged(t)
	cm := api.configMap(t)
	cm.Data[demov1alpha1.MessageKey] = "drifted"
	cm.Data["extra"] = "kept"
	if err := api.Client.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}

	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "patch ConfigMap")
	if got := api.configMap(t).Data; got[demov1alpha1.MessageKey] != "hello world" || got["extra"] != "kept" {
		t.Errorf("data = %v", got)
	}
}

func TestReconcileNeverWritesAConfigMapItDoesNotControl(t *testing.T) {
	theirs := &corev1.ConfigMap{Data: map[string]string{demov1alpha1.MessageKey: "theirs"}}
	theirs.Name, theirs.Namespace = "greeting-config", "team-a"
	api := newFakeAPI(t, newSample("greeting", "hello world"), theirs)

	result, err := api.reconcile(t)
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "patch Sample/status")
	if result.RequeueAfter == 0 {
		t.Error("a conflict should be looked at again later")
	}
	if got := <-api.events.Events; got != "Warning ConfigMapConflict ConfigMap greeting-config exists and is not controlled by this Sample; left untouched" {
		t.Errorf("event %q", got)
	}

	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("second reconcile: %v", err)
	}
	wantWrites(t, api /* none: the status already says so */)
	if n := len(api.events.Events); n != 0 {
		t.Errorf("%d more events; the conflict is recorded once", n)
	}
	if got := api.configMap(t); got.Data[demov1alpha1.MessageKey] != "theirs" || len(got.OwnerReferences) != 0 {
		t.Errorf("their ConfigMap was changed: %+v", got)
	}
}

func TestReconcileOfAGoneSampleDoesNothing(t *testing.T) {
	api := newFakeAPI(t)
	if _, err := api.reconcile(t); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api)
}

// TestReconcileReturnsEveryFault injects each kind of API failure into each call Reconcile makes.
// The failure must come back as the error (controller-runtime then retries with backoff), never be
// swallowed, and leave nothing that the next pass cannot repair.
func TestReconcileReturnsEveryFault(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	faults := map[string]error{
		"Conflict":        apierrors.NewConflict(gr, "greeting-config", errors.New("changed")),
		"ServerTimeout":   apierrors.NewServerTimeout(gr, "get", 1),
		"TooManyRequests": apierrors.NewTooManyRequests("slow down", 1),
		"NotFound":        apierrors.NewNotFound(gr, "greeting-config"),
		"generic":         errors.New("connection reset by peer"),
	}
	// Each call, and a starting state in which Reconcile makes it.
	calls := []struct {
		call  string
		state func(api *fakeAPI, t *testing.T)
	}{
		{"get Sample", func(*fakeAPI, *testing.T) {}},
		{"get ConfigMap", func(*fakeAPI, *testing.T) {}},
		{"create ConfigMap", func(*fakeAPI, *testing.T) {}},
		{"patch ConfigMap", driftAndStale},
		{"patch Sample/status", func(*fakeAPI, *testing.T) {}},
	}
	for _, c := range calls {
		for name, fault := range faults {
			t.Run(c.call+" fails with "+name, func(t *testing.T) {
				api := newFakeAPI(t, newSample("greeting", "hello world"))
				c.state(api, t)
				api.faults[c.call] = fault

				_, err := api.reconcile(t)
				switch {
				case c.call == "get Sample" && name == "NotFound":
					// The one fault that is an answer: the Sample is gone, there is nothing to do.
					if err != nil {
						t.Errorf("a Sample that is gone is not an error: %v", err)
					}
				case c.call == "patch Sample/status" && name == "NotFound":
					// The Sample was deleted while the pass worked: nothing to report to.
					if err != nil {
						t.Errorf("a Sample deleted mid-pass is not an error: %v", err)
					}
				case c.call == "get ConfigMap" && name == "NotFound":
					// Not in the cache: the ConfigMap is created, and the create succeeds.
					if err != nil {
						t.Errorf("a ConfigMap missing from the cache is created: %v", err)
					}
				case !errors.Is(err, fault):
					t.Errorf("Reconcile returned %v, want the injected %v wrapped", err, fault)
				}

				delete(api.faults, c.call)
				api.converged(t)
				if got := api.configMap(t).Data[demov1alpha1.MessageKey]; got != "hello world" {
					t.Errorf("after the fault cleared, data.message = %q", got)
				}
			})
		}
	}
}

// driftAndStale converges, then drifts the ConfigMap, so that the next pass patches it.
func driftAndStale(api *fakeAPI, t *testing.T) {
	t.Helper()
	api.converged(t)
	cm := api.configMap(t)
	cm.Data[demov1alpha1.MessageKey] = "drifted"
	if err := api.Client.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
}

// cacheBlind is a cache that holds no ConfigMap, as the operator's label-selected cache holds
// none without the managed-by label; everything else it reads from the fake API server.
type cacheBlind struct{ client.Client }

func (c cacheBlind) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.ConfigMap); ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, key.Name)
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// countingReader counts the reads that reach the API server past the cache.
type countingReader struct {
	client.Reader
	reads int
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.reads++
	return r.Reader.Get(ctx, key, obj, opts...)
}

func TestReconcileCreatesWithoutAskingTheAPIServerFirst(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	reader := &countingReader{Reader: api}
	r := &SampleReconciler{Client: cacheBlind{api}, APIReader: reader, Recorder: api.events}

	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "create ConfigMap", "patch Sample/status")
	if reader.reads != 0 {
		t.Errorf("%d reads past the cache for a ConfigMap that did not exist; a create that succeeds needs none", reader.reads)
	}
}

func TestReconcileRestoresTheLabelTheCacheSelectsOn(t *testing.T) {
	api := newFakeAPI(t, newSample("greeting", "hello world"))
	api.converged(t)
	cm := api.configMap(t)
	delete(cm.Labels, ManagedByLabel)
	if err := api.Client.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	reader := &countingReader{Reader: api}
	api.writes = nil
	r := &SampleReconciler{Client: cacheBlind{api}, APIReader: reader, Recorder: api.events}

	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	wantWrites(t, api, "create ConfigMap", "patch ConfigMap")
	if reader.reads != 1 {
		t.Errorf("%d reads past the cache; want 1, after the create found the name taken", reader.reads)
	}
	if got := api.configMap(t).Labels[ManagedByLabel]; got != ManagedByValue {
		t.Errorf("managed-by label = %q, want it restored", got)
	}
}
