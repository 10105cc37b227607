package operator

import (
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Setup registers the controllers of the operator under test with its manager.
type Setup func(ctrl.Manager) error

// Subject is the operator under test, as a suite hands it to the harness: nothing else in
// testing/ knows it. A suite describes its operator once, beside its scenarios, and passes it to
// cluster.Start and cluster.Attach.
type Subject struct {
	// Scheme knows every kind the operator and its tests read and write.
	Scheme *runtime.Scheme
	// Setup registers the operator's own controllers, as its cmd/ does.
	Setup Setup
	// ManagerOptions applies its cmd/'s manager options over the harness's (nil: none).
	ManagerOptions func(ctrl.Options) ctrl.Options
	// Controller is its controller's name, as controller_runtime_reconcile_total labels it.
	Controller string
	// WritesMetric is the counter of API write requests it exports, labelled by resource; "" if
	// it has none (Counts.Writes then reads zero).
	WritesMetric string
	// Kind is the kind it reconciles (an empty object): a spec's cleanup deletes those objects
	// from the spec's namespace, and waits until they are gone, before the namespace goes.
	Kind client.Object
	// Owned is the kind it creates for them, found by OwnedLabels: where a garbage collector runs
	// (the e2e tier), the cleanup also waits until they are collected.
	Owned       client.Object
	OwnedLabels map[string]string
	// Namespace is where its deployment (config/default) puts it, and MetricsReaderRole the
	// ClusterRole that may read its metrics: the e2e tier reads its counters with a token bound
	// to that role.
	Namespace, MetricsReaderRole string
}
