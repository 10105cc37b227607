package samples

import (
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/controllers"
	"example.com/operator-demo/testing/operator"
)

// Operator is this project's operator, as the harness runs it: the controllers cmd/ wires, with
// cmd/'s manager options, reconciling Samples into ConfigMaps; deployed by config/default into
// operator-demo-system.
var Operator = operator.Subject{
	Scheme:            controllers.NewScheme(),
	Setup:             func(mgr ctrl.Manager) error { return controllers.NewSampleReconciler(mgr).SetupWithManager(mgr) },
	ManagerOptions:    controllers.ManagerOptions,
	Controller:        controllers.ControllerName,
	WritesMetric:      controllers.WritesMetric,
	Kind:              &demov1alpha1.Sample{},
	Owned:             &corev1.ConfigMap{},
	OwnedLabels:       map[string]string{controllers.ManagedByLabel: controllers.ManagedByValue},
	Namespace:         "operator-demo-system",
	MetricsReaderRole: "operator-demo-metrics-reader",
}
