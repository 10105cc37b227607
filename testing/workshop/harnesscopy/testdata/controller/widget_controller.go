package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	shopv1 "example.org/widgets/api/v1"
)

// ManagedBy labels the ConfigMap a Widget owns.
const ManagedBy = "app.kubernetes.io/managed-by"

// WidgetReconciler keeps, for each Widget, a ConfigMap <name>-child holding spec.foo.
type WidgetReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=shop.example.org,resources=widgets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update

// Reconcile creates or updates the Widget's ConfigMap; CreateOrUpdate writes only what differs.
func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	widget := &shopv1.Widget{}
	if err := r.Get(ctx, req.NamespacedName, widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: widget.Name + "-child", Namespace: widget.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, child, func() error {
		child.Labels = map[string]string{ManagedBy: "widgets"}
		child.Data = map[string]string{"foo": ptr.Deref(widget.Spec.Foo, "")}
		return controllerutil.SetControllerReference(widget, child, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("ConfigMap of Widget %s: %w", req.NamespacedName, err)
	}
	return ctrl.Result{}, nil
}

// SetupWithManager sets up the controller with the Manager.
func (r *WidgetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&shopv1.Widget{}).
		Owns(&corev1.ConfigMap{}).
		Named("widget").
		Complete(r)
}
