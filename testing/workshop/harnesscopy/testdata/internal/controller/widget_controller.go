package controller

import (
	"context"
	"fmt"

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

// WidgetReconciler keeps, for each Widget, a ConfigMap <name>-child holding spec.foo, and reports
// Ready in status once it does.
type WidgetReconciler struct {
	client.Client
	Scheme *runtime.Scheme
	// Clock tells when Ready changed (nil: the wall clock).
	Clock clock.PassiveClock
}

// +kubebuilder:rbac:groups=shop.example.org,resources=widgets,verbs=get;list;watch
// +kubebuilder:rbac:groups=shop.example.org,resources=widgets/status,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update

// Reconcile creates or updates the Widget's ConfigMap (CreateOrUpdate writes only what differs),
// then writes status, only when it changed.
func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	widget := &shopv1.Widget{}
	if err := r.Get(ctx, req.NamespacedName, widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: widget.Name + "-child", Namespace: widget.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, child, func() error {
		child.Data = map[string]string{"foo": ptr.Deref(widget.Spec.Foo, "")}
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
		return ctrl.Result{}, nil
	}
	logf.FromContext(ctx).Info("reporting Ready", "configMap", child.Name)
	if err := r.Status().Update(ctx, widget); err != nil {
		return ctrl.Result{}, fmt.Errorf("status of Widget %s: %w", req.NamespacedName, err)
	}
	return ctrl.Result{}, nil
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
