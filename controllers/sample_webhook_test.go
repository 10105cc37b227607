package controllers

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// managerOf is a manager of scheme that reaches no cluster and serves nothing: enough to register
// webhooks with, never started.
func managerOf(t *testing.T, scheme *runtime.Scheme) ctrl.Manager {
	t.Helper()
	mgr, err := ctrl.NewManager(&rest.Config{Host: "https://127.0.0.1:1"}, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		WebhookServer: webhook.NewServer(webhook.Options{Port: -1}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

// TestSetupWebhooksRegistersTheSamplesConverter: the conversion webhook of Samples is served at
// /convert, converting through SampleConverter, with v1beta1 the hub.
func TestSetupWebhooksRegistersTheSamplesConverter(t *testing.T) {
	mgr := managerOf(t, NewScheme())
	if err := SetupWebhooks(mgr); err != nil {
		t.Fatal(err)
	}
	if _, ok := mgr.GetConverterRegistry().GetConverter(schema.GroupKind{Group: demov1beta1.GroupVersion.Group, Kind: "Sample"}); !ok {
		t.Error("no converter registered for Samples")
	}
	if _, pattern := mgr.GetWebhookServer().WebhookMux().Handler(httptest.NewRequest(http.MethodPost, "/convert", nil)); pattern != "/convert" {
		t.Errorf("/convert is served by the pattern %q, want /convert", pattern)
	}
}

// TestSetupWebhooksFailsNamingTheWebhookWhenTheSchemeLacksTheHub: a manager whose scheme does not
// know v1beta1 cannot serve the conversion, and SetupWebhooks says which webhook and why, for
// cmd/ to stop on.
func TestSetupWebhooksFailsNamingTheWebhookWhenTheSchemeLacksTheHub(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(demov1alpha1.AddToScheme(scheme))
	err := SetupWebhooks(managerOf(t, scheme))
	if err == nil || !strings.Contains(err.Error(), "set up the conversion webhook of Samples: ") || !strings.Contains(err.Error(), "v1beta1.Sample") {
		t.Errorf("SetupWebhooks = %v, want an error naming the conversion webhook of Samples and the v1beta1 Sample its scheme lacks", err)
	}
}
