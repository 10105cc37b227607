package v1

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	shopv1 "example.org/widgets/api/v1"
)

// DefaultFoo is spec.foo when a Widget is created without one.
const DefaultFoo = "plain"

// SetupWidgetWebhookWithManager registers the Widget's defaulting and validating webhooks, and
// its conversion webhook (the builder adds /convert, as v1 is a Hub that v2 converts through).
func SetupWidgetWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &shopv1.Widget{}).
		WithValidator(&WidgetValidator{}).
		WithDefaulter(&WidgetDefaulter{}).
		Complete()
}

// +kubebuilder:webhook:path=/mutate-shop-example-org-v1-widget,mutating=true,failurePolicy=fail,sideEffects=None,groups=shop.example.org,resources=widgets,verbs=create;update,versions=v1,name=mwidget-v1.kb.io,admissionReviewVersions=v1

// WidgetDefaulter sets spec.foo to DefaultFoo when it is not set.
type WidgetDefaulter struct{}

func (d *WidgetDefaulter) Default(ctx context.Context, obj *shopv1.Widget) error {
	if obj.Spec.Foo == nil {
		logf.FromContext(ctx).Info("defaulting spec.foo", "foo", DefaultFoo)
		obj.Spec.Foo = ptr.To(DefaultFoo)
	}
	return nil
}

// +kubebuilder:webhook:path=/validate-shop-example-org-v1-widget,mutating=false,failurePolicy=fail,sideEffects=None,groups=shop.example.org,resources=widgets,verbs=create;update,versions=v1,name=vwidget-v1.kb.io,admissionReviewVersions=v1

// WidgetValidator refuses a Widget whose spec.foo is "forbidden".
type WidgetValidator struct{}

func (v *WidgetValidator) ValidateCreate(_ context.Context, obj *shopv1.Widget) (admission.Warnings, error) {
	return nil, validate(obj)
}

func (v *WidgetValidator) ValidateUpdate(_ context.Context, _, newObj *shopv1.Widget) (admission.Warnings, error) {
	return nil, validate(newObj)
}

func (v *WidgetValidator) ValidateDelete(_ context.Context, _ *shopv1.Widget) (admission.Warnings, error) {
	return nil, nil
}

func validate(w *shopv1.Widget) error {
	if foo := ptr.Deref(w.Spec.Foo, ""); foo == "forbidden" {
		return apierrors.NewInvalid(shopv1.GroupVersion.WithKind("Widget").GroupKind(), w.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "foo"), foo, `"forbidden" is not a foo a Widget may have`),
		})
	}
	return nil
}
