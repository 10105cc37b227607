package operator

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Setup registers the controllers of the operator under test with its manager, reading the
// spec's Settings where the operator takes any (a clock, say).
type Setup func(ctrl.Manager, Settings) error

// Subject is the operator under test, as a suite describes it to the harness, once, from what its
// cmd/ wires, so that the scenarios run what production runs.
type Subject struct {
	// Scheme knows every kind the operator and its tests read and write.
	Scheme *runtime.Scheme
	// Setup registers the operator's own controllers, as its cmd/ does.
	Setup Setup
	// ManagerOptions applies its cmd/'s manager options over the harness's (nil: none).
	ManagerOptions func(ctrl.Options) ctrl.Options
	// Webhooks registers its webhooks with a manager, as its cmd/ does (nil: none). The harness
	// serves them once for the whole suite, apart from every spec's operator, with the
	// configurations of the directories WebhookManifests installed (default: config/webhook).
	Webhooks         func(ctrl.Manager) error
	WebhookManifests []string
	// CRDs are the directories of the CRDs the control plane installs (default:
	// config/crd/bases). Like WebhookManifests, relative to the repository: each is found in the
	// working directory or the nearest directory above it that holds it.
	CRDs []string
	// Kind is the kind it reconciles (an empty object): a spec's cleanup deletes those objects
	// from the spec's namespace, and waits until they are gone, before the namespace goes.
	Kind client.Object
	// Owned are the kinds it creates for them (empty objects). Where a garbage collector runs (the
	// e2e tier), the cleanup also waits until none of them in the namespace has an owner of Kind.
	Owned []client.Object
}

// Changes change how a spec's operator runs. Only an operator in the test process takes them.
type Changes struct {
	// Setup registers other controllers than the subject's own: a stage of a walkthrough, say.
	Setup Setup
	// Settings are what the spec set, for the Subject's Setup to read.
	Settings Settings
	// ClientConfig changes the client configuration its manager connects with: a slower network,
	// say (package cachelag).
	ClientConfig func(*rest.Config) *rest.Config
}

// Setting is what a spec may choose of the operator under test (a clock, say): the suite declares
// it beside its Subject, a spec sets it in Changes.Settings (harness.With), the Subject's Setup
// reads it (In).
//
//	var Clock = operator.NewSetting[clock.PassiveClock](clock.RealClock{})
type Setting[T any] struct{ unset T }

// NewSetting declares a setting, whose value is unset when a spec does not set it.
func NewSetting[T any](unset T) *Setting[T] { return &Setting[T]{unset: unset} }

// In is the setting's value in s: the spec's, or the value it has when unset.
func (o *Setting[T]) In(s Settings) T {
	if v, ok := s[o].(T); ok {
		return v
	}
	return o.unset
}

// Settings are the settings a spec chose for its operator, keyed by their Setting.
type Settings map[any]any
