// Package setup is the operator that cmd/main.go runs and the scenarios test: its scheme, its
// controllers and its webhooks, in one place both import, so that what main.go wires is what
// the scenarios run.
package setup

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	shopv1 "example.org/widgets/api/v1"
	shopv2 "example.org/widgets/api/v2"
	"example.org/widgets/internal/controller"
	webhookv1 "example.org/widgets/internal/webhook/v1"
)

var schemeBuilder = runtime.NewSchemeBuilder(clientgoscheme.AddToScheme, shopv1.AddToScheme, shopv2.AddToScheme)

// AddToScheme adds the built-in kinds and the operator's API, every version, to a scheme.
var AddToScheme = schemeBuilder.AddToScheme

// NewScheme is a scheme that knows what AddToScheme adds.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(AddToScheme(s))
	return s
}

// Controllers registers the operator's controllers with mgr; their clock tells the time.
func Controllers(mgr ctrl.Manager, clk clock.PassiveClock) error {
	return (&controller.WidgetReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Clock: clk}).SetupWithManager(mgr)
}

// Webhooks registers the operator's webhooks with mgr: admission, and conversion (v1 is the Hub).
func Webhooks(mgr ctrl.Manager) error {
	return webhookv1.SetupWidgetWebhookWithManager(mgr)
}
