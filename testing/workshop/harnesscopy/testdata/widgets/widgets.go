// Package widgets is what the scenarios know of the Widget operator: the operator under test as
// the harness runs it.
package widgets

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	shopv1 "example.org/widgets/api/v1"
	"example.org/widgets/internal/controller"
	"example.org/widgets/testing/operator"
)

// Operator is the Widget operator, as cmd/main.go wires it.
var Operator = operator.Subject{
	Scheme: scheme(),
	Setup: func(mgr ctrl.Manager) error {
		return (&controller.WidgetReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)
	},
	Controller:        "widget",
	Kind:              &shopv1.Widget{},
	Owned:             &corev1.ConfigMap{},
	OwnedLabels:       map[string]string{controller.ManagedBy: "widgets"},
	Namespace:         "widgets-system",
	MetricsReaderRole: "widgets-metrics-reader",
}

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(s))
	must(shopv1.AddToScheme(s))
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
