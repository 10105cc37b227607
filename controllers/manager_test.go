package controllers

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// TestTheCacheHoldsOnlyTheOperatorsConfigMaps: the manager's cache selects ConfigMaps by the
// managed-by label, so that the operator holds in memory its own ConfigMaps and no one else's, and
// the selections a caller had already made stay.
func TestTheCacheHoldsOnlyTheOperatorsConfigMaps(t *testing.T) {
	secrets := cache.ByObject{}
	opts := ManagerOptions(ctrl.Options{Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.Secret{}: secrets}}})
	var configMaps *cache.ByObject
	kept := false
	for obj, by := range opts.Cache.ByObject {
		switch obj.(type) {
		case *corev1.ConfigMap:
			configMaps = &by
		case *corev1.Secret:
			kept = true
		}
	}
	if configMaps == nil || configMaps.Label == nil {
		t.Fatalf("the cache selects no ConfigMaps by label: %+v", opts.Cache.ByObject)
	}
	if !configMaps.Label.Matches(labels.Set{ManagedByLabel: ManagedByValue, "team": "a"}) || configMaps.Label.Matches(labels.Set{"team": "a"}) {
		t.Errorf("the cache selects ConfigMaps by %q: want those labelled %s=%s, and only those", configMaps.Label, ManagedByLabel, ManagedByValue)
	}
	if !kept {
		t.Error("the caller's own selection (Secrets) is gone")
	}
	if opts.Client.Cache == nil || opts.Client.Cache.EnableReadYourWritesConsistency == nil || !*opts.Client.Cache.EnableReadYourWritesConsistency {
		t.Error("the client does not read its own writes")
	}
}

// TestEveryWriteIsCountedByVerbAndResource: WritesMetric counts each write the operator's client
// sends, labelled by verb and by kind, with the subresource after a slash; a kind the scheme lacks
// is counted as unknown. A refused write is counted too, and its error returned as it came. The
// scenarios prove "no write" with these counts.
func TestEveryWriteIsCountedByVerbAndResource(t *testing.T) {
	ctx := context.Background()
	sample := &demov1alpha1.Sample{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a"}}
	c := countingWrites(fake.NewClientBuilder().WithScheme(NewScheme()).WithObjects(sample).WithStatusSubresource(sample).Build())
	configMap := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "demo-config", Namespace: "team-a"}}
	gone := &demov1alpha1.Sample{ObjectMeta: metav1.ObjectMeta{Name: "gone", Namespace: "team-a"}}
	want := map[[2]string]float64{
		{"create", "ConfigMap"}: 1, {"update", "ConfigMap"}: 2, {"patch", "ConfigMap"}: 2, {"delete", "ConfigMap"}: 2,
		{"update", "Sample/status"}: 2, {"patch", "Sample/status"}: 2, {"create", "unknown"}: 1,
	}
	before := map[[2]string]float64{}
	for w := range want {
		before[w] = testutil.ToFloat64(apiWrites.WithLabelValues(w[0], w[1]))
	}

	// In this order: the calls are made as the list is built.
	type write struct {
		what string
		err  error
	}
	for _, w := range []write{
		{"create", c.Create(ctx, configMap)},
		{"update", c.Update(ctx, configMap)},
		{"patch", c.Patch(ctx, configMap, client.MergeFrom(configMap.DeepCopy()))},
		{"update status", c.Status().Update(ctx, sample)},
		{"patch status", c.Status().Patch(ctx, sample, client.MergeFrom(sample.DeepCopy()))},
		{"delete", c.Delete(ctx, configMap)},
	} {
		if w.err != nil {
			t.Fatalf("%s: %v", w.what, w.err)
		}
	}
	// Each write again, of objects that do not exist: refused, counted all the same, and the
	// API server's error returned.
	for _, w := range []write{
		{"update", c.Update(ctx, configMap)},
		{"patch", c.Patch(ctx, configMap, client.MergeFrom(configMap.DeepCopy()))},
		{"delete", c.Delete(ctx, configMap)},
		{"update status", c.Status().Update(ctx, gone)},
		{"patch status", c.Status().Patch(ctx, gone, client.MergeFrom(gone.DeepCopy()))},
	} {
		if !apierrors.IsNotFound(w.err) {
			t.Errorf("%s of an object that does not exist: %v, want NotFound", w.what, w.err)
		}
	}
	// A kind this client's scheme lacks.
	withoutSamples := countingWrites(fake.NewClientBuilder().WithScheme(runtime.NewScheme()).Build())
	if err := withoutSamples.Create(ctx, &demov1alpha1.Sample{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "team-a"}}); err == nil {
		t.Error("a write of a kind the scheme lacks succeeded")
	}

	for w, n := range want {
		if got := testutil.ToFloat64(apiWrites.WithLabelValues(w[0], w[1])) - before[w]; got != n {
			t.Errorf("%s %s: counted %v times, want %v", w[0], w[1], got, n)
		}
	}
}

// TestAClientThatCannotBeMadeIsAnError: the manager's client constructor returns the error of a
// configuration it cannot use, rather than a client that fails on every call.
func TestAClientThatCannotBeMadeIsAnError(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443", TLSClientConfig: rest.TLSClientConfig{CAFile: "/nonexistent/ca.crt"}}
	c, err := newCountingClient(cfg, client.Options{Scheme: clientgoscheme.Scheme})
	if err == nil || c != nil {
		t.Errorf("newCountingClient with an unreadable CA file: %v, %v; want an error and no client", c, err)
	}
}
