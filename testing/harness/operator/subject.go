package operator

import (
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Setup registers the controllers of the operator under test with its manager, reading a spec's
// Settings where the operator takes options (a clock, say).
type Setup func(ctrl.Manager, Settings) error

// Subject is the operator under test, as a suite hands it to the harness: nothing else in
// testing/ knows it. A suite describes its operator once, beside its scenarios, from what its
// cmd/ wires (the scheme, the manager options, the setup of its controllers and webhooks), so
// that the scenarios run what production runs.
type Subject struct {
	// Scheme knows every kind the operator and its tests read and write.
	Scheme *runtime.Scheme
	// Setup registers the operator's own controllers, as its cmd/ does.
	Setup Setup
	// ManagerOptions applies its cmd/'s manager options over the harness's (nil: none).
	ManagerOptions func(ctrl.Options) ctrl.Options
	// Webhooks registers its admission webhooks with a manager, as its cmd/ does (nil: it has
	// none). The harness serves them once for the whole suite, apart from every spec's operator,
	// with the configurations in WebhookManifests installed (kubebuilder's config/webhook).
	Webhooks         func(ctrl.Manager) error
	WebhookManifests []string
	// CRDs are the directories of the CRDs the control plane installs: the operator's and any it
	// relies on (default: config/crd/bases). Like WebhookManifests, relative to the repository:
	// each is found in the working directory or the nearest directory above it that holds it.
	CRDs []string
	// Kind is the kind it reconciles (an empty object): a spec's cleanup deletes those objects
	// from the spec's namespace, and waits until they are gone, before the namespace goes.
	Kind client.Object
	// Owned are the kinds it creates for them (empty objects). Where a garbage collector runs (the
	// e2e tier), the cleanup also waits until none of them in the namespace has an owner of Kind.
	Owned []client.Object
}

// Option is a setting of the operator under test that a spec may choose (a clock, say) without
// replacing its setup: the suite declares it beside its Subject, a spec sets it
// (harness.With(option, value)), and the Subject's Setup reads it (option.In(settings)).
//
//	var Clock = operator.NewOption[clock.PassiveClock](clock.RealClock{})
type Option[T any] struct{ unset T }

// NewOption declares an option, whose value is unset when a spec does not set it.
func NewOption[T any](unset T) *Option[T] { return &Option[T]{unset: unset} }

// In is the option's value in s: the spec's, or the value it has when unset.
func (o *Option[T]) In(s Settings) T {
	if v, ok := s[o].(T); ok {
		return v
	}
	return o.unset
}

// Set sets the option to v in s.
func (o *Option[T]) Set(s Settings, v T) { s[o] = v }

// Settings are the options a spec set for its operator, keyed by their Option.
type Settings map[any]any
