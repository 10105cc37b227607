package controllers

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// BenchmarkReconcileNoOp: a pass over a converged Sample against the fake client (no API server):
// the controller's own cost per reconcile, and proof that it writes nothing.
func BenchmarkReconcileNoOp(b *testing.B) {
	api := newFakeAPI(b, newSample("greeting", "hello world"))
	api.converged(b)
	r := &SampleReconciler{Client: api, APIReader: api, Recorder: api.events}
	req := ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "greeting"}}
	api.writes = nil
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Reconcile(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	if len(api.writes) != 0 {
		b.Fatalf("a no-op reconcile wrote: %v", api.writes)
	}
}

func BenchmarkDesiredConfigMap(b *testing.B) {
	sample := newSample("greeting", "hello world")
	b.ReportAllocs()
	for b.Loop() {
		_ = desiredConfigMap(sample)
	}
}

func BenchmarkDesiredStatus(b *testing.B) {
	sample := newSample("greeting", "hello world")
	now := metav1.NewTime(time.Now())
	sample.Status = desiredStatus(sample, nil, now)
	b.ReportAllocs()
	for b.Loop() {
		_ = desiredStatus(sample, nil, now)
	}
}
