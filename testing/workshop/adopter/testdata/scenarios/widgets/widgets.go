// Package widgets is what the scenarios know of the Widget operator: the operator under test as
// the harness runs it, from what cmd/main.go wires (internal/setup).
package widgets

import (
	"example.com/operator-demo/testing/harness/operator"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	shopv1 "example.org/widgets/api/v1"
	"example.org/widgets/internal/setup"
)

// Clock is the operator's clock, which a spec may set (harness.With(widgets.Clock, ...)).
var Clock = operator.NewSetting[clock.PassiveClock](clock.RealClock{})

// Operator is the Widget operator: its controllers and its webhooks (configured in config/webhook).
var Operator = operator.Subject{
	Scheme: setup.NewScheme(),
	Setup: func(mgr ctrl.Manager, s operator.Settings) error {
		return setup.Controllers(mgr, Clock.In(s))
	},
	Webhooks: setup.Webhooks,
	Kind:     &shopv1.Widget{},
	Owned:    []client.Object{&corev1.ConfigMap{}},
}

// New is a Widget called name in namespace, whose spec.foo is foo.
func New(namespace, name, foo string) *shopv1.Widget {
	return &shopv1.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       shopv1.WidgetSpec{Foo: ptr.To(foo)},
	}
}
