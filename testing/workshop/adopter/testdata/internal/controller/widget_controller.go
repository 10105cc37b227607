package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	shopv1 "example.org/widgets/api/v1"
)

// Finalizer holds a deleted Widget until its ConfigMap is gone.
const Finalizer = "shop.example.org/configmap"

// Resync is how often a Widget is reconciled when nothing changes.
const Resync = time.Minute

// WidgetReconciler keeps, for each Widget, a ConfigMap <name>-child holding spec.foo, labelled
// with spec.template's labels, and reports Ready in status once it does. It deletes the
// ConfigMap when the Widget is deleted.
type WidgetReconciler struct {
	client.Client
	Scheme *runtime.Scheme
	// Clock tells when Ready changed (nil: the wall clock).
	Clock clock.PassiveClock
}

// +kubebuilder:rbac:groups=shop.example.org,resources=widgets,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=shop.example.org,resources=widgets/status,verbs=update
// +kubebuilder:rbac:groups=shop.example.org,resources=widgets/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;delete

// Reconcile creates or updates the Widget's ConfigMap (CreateOrUpdate writes only what differs),
// then writes status, only when it changed.
func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	widget := &shopv1.Widget{}
	if err := r.Get(ctx, req.NamespacedName, widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: widget.Name + "-child", Namespace: widget.Namespace}}
	if !widget.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.release(ctx, widget, child)
	}
	if controllerutil.AddFinalizer(widget, Finalizer) {
		if err := r.Update(ctx, widget); err != nil {
			return ctrl.Result{}, fmt.Errorf("finalizer of Widget %s: %w", req.NamespacedName, err)
		}
	}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, child, func() error {
		child.Data = map[string]string{"foo": ptr.Deref(widget.Spec.Foo, "")}
		if widget.Spec.Template != nil {
			child.Labels = widget.Spec.Template.Labels
		}
		return controllerutil.SetControllerReference(widget, child, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("ConfigMap of Widget %s: %w", req.NamespacedName, err)
	}
	before := widget.DeepCopy()
	meta.SetStatusCondition(&widget.Status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "Synced", ObservedGeneration: widget.Generation,
		Message: fmt.Sprintf("ConfigMap %s holds spec.foo", child.Name), LastTransitionTime: r.now(),
	})
	if equality.Semantic.DeepEqual(before.Status, widget.Status) {
		return ctrl.Result{RequeueAfter: Resync}, nil
	}
	logf.FromContext(ctx).Info("reporting Ready", "configMap", child.Name)
	if err := r.Status().Update(ctx, widget); err != nil {
		return ctrl.Result{}, fmt.Errorf("status of Widget %s: %w", req.NamespacedName, err)
	}
	return ctrl.Result{RequeueAfter: Resync}, nil
}

// release deletes the Widget's ConfigMap, then removes the finalizer: the Widget goes.
func (r *WidgetReconciler) release(ctx context.Context, widget *shopv1.Widget, child *corev1.ConfigMap) error {
	logf.FromContext(ctx).Info("deleting its ConfigMap, then its finalizer", "configMap", child.Name)
	if err := client.IgnoreNotFound(r.Delete(ctx, child)); err != nil {
		return fmt.Errorf("delete ConfigMap %s of Widget %s: %w", child.Name, widget.Name, err)
	}
	if controllerutil.RemoveFinalizer(widget, Finalizer) {
		if err := r.Update(ctx, widget); err != nil {
			return fmt.Errorf("release Widget %s: %w", widget.Name, err)
		}
	}
	return nil
}

func (r *WidgetReconciler) now() metav1.Time {
	if r.Clock == nil {
		return metav1.Now()
	}
	return metav1.NewTime(r.Clock.Now())
}

// SetupWithManager sets up the controller with the Manager.
func (r *WidgetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&shopv1.Widget{}).
		Owns(&corev1.ConfigMap{}).
		Named("widget").
		Complete(r)
}
