// Package controllers holds the Sample controller: it keeps each Sample's spec.data (v1alpha1's
// spec.message) in a ConfigMap named "<name>-config" that the Sample controls.
package controllers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/applyconfigurations"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/util/csaupgrade"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// FieldOwner is the field manager of every write the operator makes: metadata.managedFields lists
// what it owns of an object under this name.
const FieldOwner = "operator-demo"

// PreviousFieldManager is the field manager that the releases before server-side apply wrote
// under: their merge patches named none, so the API server recorded the program name of their
// User-Agent, their binary's (config/manager runs /manager).
const PreviousFieldManager = "manager"

// ControllerName names the controller in logs and metrics (controller="sample").
const ControllerName = "sample"

// DefaultMaxConcurrentReconciles is how many Samples are reconciled at once unless told
// otherwise: the smallest count that kept throughput within 1.2x of a bare client at both measured
// client limits in every envtest measurement on 2 AMD cores; on 2 Intel ones, only at QPS 50
// (BENCHMARKS.md).
const DefaultMaxConcurrentReconciles = 8

// Reasons of the events the controller records, with the action each one reports.
const (
	// EventCreated (Normal): the ConfigMap was created.
	EventCreated = "Created"
	// EventUpdated (Normal): the ConfigMap's managed fields were brought back to spec.
	EventUpdated = "Updated"
)

// DefaultConflictRecheck is how often a Sample whose ConfigMap name is taken looks again unless
// told otherwise (--conflict-recheck): the ConfigMap in the way carries no label of ours, so no
// watch event announces that it is gone. Whoever deletes it, as the condition's message says to,
// sees the Sample take the name within 10 s; a conflict that lasts costs one read every 10 s.
const DefaultConflictRecheck = 10 * time.Second

// +kubebuilder:rbac:groups=demo.example.com,resources=samples,verbs=get;list;watch
// +kubebuilder:rbac:groups=demo.example.com,resources=samples/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// SampleReconciler keeps each Sample's data in its ConfigMap.
type SampleReconciler struct {
	client.Client
	// APIReader reads from the API server, not the cache. Used only to look at a ConfigMap that
	// the cache cannot see because it lacks the managed-by label.
	APIReader client.Reader
	Recorder  recorder.EventRecorder
	// MaxConcurrentReconciles is how many Samples are reconciled at once
	// (DefaultMaxConcurrentReconciles when zero).
	MaxConcurrentReconciles int
	// ConflictRecheck is how often a Sample whose ConfigMap name is taken looks again
	// (DefaultConflictRecheck when zero).
	ConflictRecheck time.Duration
}

// NewSampleReconciler returns a reconciler that uses mgr's client, API reader and event recorder.
func NewSampleReconciler(mgr ctrl.Manager) *SampleReconciler {
	// ExtractConfigMap parses client-go's schema of every built-in kind the first time it runs, once
	// per process: 80 ms, 0.6 s under the race detector. Parsed here, as the operator starts, it never
	// holds up a pass (the first to compare a ConfigMap held the harness's waits past Settle).
	applyconfigurations.NewTypeConverter(mgr.GetScheme())
	return &SampleReconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Recorder:  mgr.GetEventRecorder("sample-controller"),
	}
}

// SetupWithManager registers the Sample controller with mgr: a Sample is reconciled when its spec
// changes, and when a ConfigMap it controls changes or is deleted, so drift is undone at once.
func (r *SampleReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		// GenerationChangedPredicate: a change of the Sample's status (or of its labels and
		// annotations) does not bump metadata.generation and starts no reconcile; only spec does.
		For(&demov1beta1.Sample{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// A ConfigMap's creation is the operator's own doing (or, at start, the initial list,
		// while every Sample is reconciled anyway): reconciling the Sample again for it would only
		// compare against a cache that may not hold the new status yet, and write it twice.
		Owns(&corev1.ConfigMap{}, builder.WithPredicates(predicate.Funcs{
			CreateFunc: func(event.CreateEvent) bool { return false },
		})).
		WithOptions(r.options()).
		Complete(r)
}

// options are the controller's: how many Samples it reconciles at once, and how it paces the
// retries of failed passes.
func (r *SampleReconciler) options() controller.Options {
	return controller.Options{
		MaxConcurrentReconciles: cmp.Or(r.MaxConcurrentReconciles, DefaultMaxConcurrentReconciles),
		RateLimiter:             retryRateLimiter(),
	}
}

// Reconcile brings one Sample's ConfigMap and status in line with its spec.
func (r *SampleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	result, err := r.reconcile(ctx, req)
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		// The manager cancelled this pass as it stops: abandoned, not failed, and no error for the
		// log. Whichever operator runs next reconciles every Sample when it starts.
		return ctrl.Result{}, nil
	}
	return result, err
}

// reconcile is one pass: fetch the Sample, sync its ConfigMap, write what happened to status. A
// failed sync is returned too, so that it is retried with backoff, counted and logged.
func (r *SampleReconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	sample := &demov1beta1.Sample{}
	if err := r.Get(ctx, req.NamespacedName, sample); err != nil {
		// Gone: nothing to do. Its ConfigMap goes with it, by garbage collection.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !sample.DeletionTimestamp.IsZero() {
		// Being deleted: recreating the ConfigMap now would race the garbage collector.
		return ctrl.Result{}, nil
	}

	syncErr := r.syncConfigMap(ctx, sample)
	if err := r.writeStatus(ctx, sample, syncErr); err != nil {
		return ctrl.Result{}, errors.Join(syncErr, err)
	}
	if errors.Is(syncErr, errConflict) {
		// Not a failure of the operator's: the name is someone else's, as status now says.
		return ctrl.Result{RequeueAfter: cmp.Or(r.ConflictRecheck, DefaultConflictRecheck)}, nil
	}
	return ctrl.Result{}, syncErr
}

// syncConfigMap makes the Sample's ConfigMap hold what desiredConfigMap says, or says why it
// cannot: errConflict when the name is someone else's, else the API server's error.
//
// The write strategy, the same for every write the operator makes: server-side apply, as field
// owner FieldOwner, of the whole of what the operator wants and nothing else, and only when that
// differs from what it owns now (an apply that changes nothing is still a request). The API server
// merges it field by field: it removes what the operator applied before and no longer wants, and
// leaves every field that others own as they wrote it. A ConfigMap the Sample does not control is
// never written: an update names the uid of the ConfigMap read, so that one created again under
// the same name since, which the cache may not show yet, is refused by the API server. (An apply
// cannot ask that nothing exist: one that creates follows a read at the API server that found the
// name free, a moment before.)
func (r *SampleReconciler) syncConfigMap(ctx context.Context, sample *demov1beta1.Sample) error {
	desired := desiredConfigMap(sample)
	current, err := r.currentConfigMap(ctx, client.ObjectKey{Namespace: *desired.Namespace, Name: *desired.Name})
	switch {
	case err != nil:
		return fmt.Errorf("read ConfigMap %s/%s for Sample %s: %w", *desired.Namespace, *desired.Name, sample.Name, err)
	case current == nil:
		return r.apply(ctx, sample, desired, EventCreated)
	case !metav1.IsControlledBy(current, sample):
		return errConflict
	}
	if err := r.takeOver(ctx, current); err != nil {
		return fmt.Errorf("hand ConfigMap %s/%s of Sample %s over to %s: %w", current.Namespace, current.Name, sample.Name, FieldOwner, err)
	}
	// What the operator owns of it now; where its managedFields cannot be read, it is applied
	// again, which writes them afresh.
	if owned, err := corev1ac.ExtractConfigMap(current, FieldOwner); err == nil && equality.Semantic.DeepEqual(owned, desired) {
		return nil
	}
	return r.apply(ctx, sample, desired.WithUID(current.UID), EventUpdated)
}

// takeOver hands what PreviousFieldManager owns of current over to FieldOwner's apply, where the
// operator has never applied it: a release before server-side apply wrote it. It does what
// `kubectl apply --server-side` does for what client-side apply wrote: otherwise an apply that sets
// a field to the value it holds would share it with that manager, and a key removed from spec.data
// later would stay. It is one JSON patch of managedFields, which tests the resourceVersion read;
// current is then as the API server answered. Once the operator has applied the ConfigMap, a
// client of that name (every kubebuilder binary is "manager") is someone else, whose fields stay
// theirs; and a ConfigMap with nothing of PreviousFieldManager's costs no request.
func (r *SampleReconciler) takeOver(ctx context.Context, current *corev1.ConfigMap) error {
	if slices.ContainsFunc(current.ManagedFields, func(e metav1.ManagedFieldsEntry) bool {
		return e.Manager == FieldOwner && e.Operation == metav1.ManagedFieldsOperationApply
	}) {
		return nil
	}
	patch, err := csaupgrade.UpgradeManagedFieldsPatch(current, sets.New(PreviousFieldManager), FieldOwner)
	if err != nil || patch == nil {
		return err
	}
	return r.Patch(ctx, current, client.RawPatch(types.JSONPatchType, patch))
}

// currentConfigMap reads the ConfigMap key from the cache, which holds only ConfigMaps with the
// managed-by label; where the cache has none, from the API server, which also sees one without
// the label (someone else's, or the operator's own with its label stripped). nil: there is none.
func (r *SampleReconciler) currentConfigMap(ctx context.Context, key client.ObjectKey) (*corev1.ConfigMap, error) {
	current := &corev1.ConfigMap{}
	err := r.Get(ctx, key, current)
	if apierrors.IsNotFound(err) {
		err = r.APIReader.Get(ctx, key, current)
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return current, err
}

// apply applies desired as FieldOwner, taking over any field another manager holds of it, and
// records reason (EventCreated, EventUpdated) as a Normal event of the Sample.
func (r *SampleReconciler) apply(ctx context.Context, sample *demov1beta1.Sample, desired *corev1ac.ConfigMapApplyConfiguration, reason string) error {
	if err := r.Apply(ctx, desired, client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("apply ConfigMap %s/%s for Sample %s: %w", *desired.Namespace, *desired.Name, sample.Name, err)
	}
	// The event's related object: the ConfigMap as the apply answered with it, a create's uid too.
	related := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: *desired.Name, Namespace: *desired.Namespace}}
	if desired.UID != nil {
		related.UID = *desired.UID
	}
	action, note := "CreateConfigMap", "created ConfigMap %s"
	if reason == EventUpdated {
		action, note = "UpdateConfigMap", "updated ConfigMap %s to match the Sample's spec"
	}
	r.Recorder.Eventf(sample, related, corev1.EventTypeNormal, reason, action, note, related.Name)
	return nil
}
