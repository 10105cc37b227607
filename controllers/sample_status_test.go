package controllers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

func TestDesiredStatus(t *testing.T) {
	earlier := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(earlier.Add(time.Hour))
	const (
		syncedMessage   = "ConfigMap greeting-config holds spec.message"
		conflictMessage = "ConfigMap greeting-config exists and is not controlled by this Sample; it is left untouched: delete it to let this Sample create its own, or give the Sample another name"
	)
	ready := func(status metav1.ConditionStatus, reason string, generation int64, at metav1.Time) metav1.Condition {
		message := syncedMessage
		if reason == demov1alpha1.ReasonConfigMapConflict {
			message = conflictMessage
		}
		return metav1.Condition{Type: "Ready", Status: status, Reason: reason, Message: message, ObservedGeneration: generation, LastTransitionTime: at}
	}
	// status is what a pass leaves: the generation it observed, the ConfigMap's name, one condition.
	status := func(generation int64, condition metav1.Condition) demov1alpha1.SampleStatus {
		return demov1alpha1.SampleStatus{ObservedGeneration: generation, ConfigMapName: "greeting-config", Conditions: []metav1.Condition{condition}}
	}
	tests := []struct {
		name       string
		generation int64
		stored     demov1alpha1.SampleStatus
		syncErr    error
		want       demov1alpha1.SampleStatus
	}{
		{
			name:       "first pass, synced: Ready=True since now",
			generation: 1,
			syncErr:    nil,
			want:       status(1, ready(metav1.ConditionTrue, demov1alpha1.ReasonSynced, 1, now)),
		},
		{
			name:       "synced again: identical to what is stored, so nothing to write",
			generation: 1,
			stored:     status(1, ready(metav1.ConditionTrue, demov1alpha1.ReasonSynced, 1, earlier)),
			syncErr:    nil,
			want:       status(1, ready(metav1.ConditionTrue, demov1alpha1.ReasonSynced, 1, earlier)),
		},
		{
			name:       "new generation synced: generation moves, transition time stays",
			generation: 2,
			stored:     status(1, ready(metav1.ConditionTrue, demov1alpha1.ReasonSynced, 1, earlier)),
			syncErr:    nil,
			want:       status(2, ready(metav1.ConditionTrue, demov1alpha1.ReasonSynced, 2, earlier)),
		},
		{
			name:       "synced, then a conflict: Ready=False since now",
			generation: 1,
			stored:     status(1, ready(metav1.ConditionTrue, demov1alpha1.ReasonSynced, 1, earlier)),
			syncErr:    &conflictError{configMap: "greeting-config"},
			want:       status(1, ready(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapConflict, 1, now)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sample := newSample("greeting", "hello world")
			sample.Generation = tt.generation
			sample.Status = tt.stored
			got := DesiredStatus(sample, tt.syncErr, now)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}
