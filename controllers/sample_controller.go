// Package controllers holds the Sample controller: it keeps each Sample's spec.message in a
// ConfigMap named "<name>-config" that the Sample controls.
package controllers

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// ControllerName names the controller in logs, metrics (controller="sample") and events.
const ControllerName = "sample"

// Wiring says which changes start a reconcile.
type Wiring int

const (
	// WatchSamplesAndConfigMaps reconciles a Sample when its spec changes and when a ConfigMap it
	// controls changes or is deleted, so drift of the ConfigMap is undone at once. The default.
	WatchSamplesAndConfigMaps Wiring = iota
	// WatchSamplesOnly reconciles a Sample only when its spec changes: the first stage of the seed
	// article. Drift of the ConfigMap stays until the Sample next changes. For teaching and tests.
	WatchSamplesOnly
)

// Options configure the Sample controller.
type Options struct {
	// Wiring says which changes start a reconcile.
	Wiring Wiring
	// MaxConcurrentReconciles is how many Samples are reconciled at once (1 when zero).
	MaxConcurrentReconciles int
}

// The label that marks the ConfigMaps this operator writes.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "operator-demo"
)

// SampleReconciler: not implemented yet (the scenarios come first).
type SampleReconciler struct {
	client.Client
}

// SetupWithManager registers the Sample controller with mgr.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	return ctrl.NewControllerManagedBy(mgr).Named(ControllerName).For(&demov1alpha1.Sample{}).Complete(&SampleReconciler{Client: mgr.GetClient()})
}

// Reconcile does nothing yet.
func (r *SampleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return ctrl.Result{}, nil
}
