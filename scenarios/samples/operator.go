package samples

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/controllers"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/operator"
)

// Operator is this project's operator, as the harness runs it: the scheme, manager options,
// controller and webhooks that cmd/ wires, reconciling Samples into ConfigMaps and converting them
// between v1alpha1 and v1beta1.
var Operator = operator.Subject{
	Scheme: controllers.NewScheme(),
	Setup: func(mgr ctrl.Manager, settings operator.Settings) error {
		r := controllers.NewSampleReconciler(mgr)
		r.MaxConcurrentReconciles = Workers.In(settings)
		r.ConflictRecheck = ConflictRecheck.In(settings)
		return r.SetupWithManager(mgr)
	},
	ManagerOptions: controllers.ManagerOptions,
	// The conversion webhook alone, which the harness points the CRD's conversion at: there is no
	// admission webhook, so no webhook configuration to install (WebhookManifests holds none).
	Webhooks:         controllers.SetupWebhooks,
	WebhookManifests: []string{"scenarios/samples/webhooks"},
	Kind:             &demov1beta1.Sample{},
	Owned:            []client.Object{&corev1.ConfigMap{}},
}

// Previous is the release before v1beta1 and server-side apply (the Makefile's PREVIOUS_RELEASE),
// as the upgrade scenarios deploy it from its own tree: its binary runs its own controller; the
// harness needs its kind, v1alpha1, and what it creates. It has no webhooks, and its CRDs are its
// tree's config/crd/bases.
var Previous = operator.Subject{
	Scheme: controllers.NewScheme(),
	Kind:   &demov1alpha1.Sample{},
	Owned:  []client.Object{&corev1.ConfigMap{}},
}

// Interim is the release that serves v1beta1 while it stores v1alpha1 (the Makefile's
// INTERIM_RELEASE), as the rollback to it deploys it from its own tree: the release before's
// Subject (its binary reconciles v1alpha1 Samples, written with merge patches) with this one's
// conversion webhook. On the local tier that webhook is served from the test process, as every
// release's is there: by this release's code.
var Interim = func() operator.Subject {
	s := Previous
	s.Webhooks, s.WebhookManifests = Operator.Webhooks, Operator.WebhookManifests
	return s
}()

// Workers is what the operator is told to run as --max-concurrent-reconciles (0: its default).
var Workers = operator.NewSetting(0)

// ConflictRecheck is what the operator is told to run as --conflict-recheck (0: its default).
var ConflictRecheck = operator.NewSetting(time.Duration(0))

// Recover bounds how long a Sample whose ConfigMap write the API server refused takes to become
// ready once the refusal is lifted: the retry's backoff, capped by controllers.MaxRetryDelay, and
// then the harness's Converge.
const Recover = controllers.MaxRetryDelay + harness.Converge
