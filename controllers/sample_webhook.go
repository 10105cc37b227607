package controllers

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// SetupWebhooks registers the operator's webhooks with mgr's webhook server, as cmd/ serves them
// and the scenarios' harness does: one, /convert, the conversion of Samples between their versions
// (SampleConverter, v1beta1 the hub), which the CRD's conversion strategy Webhook sends the API
// server to. There are no admission webhooks: the CRD's schema validates each version.
func SetupWebhooks(mgr ctrl.Manager) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &demov1beta1.Sample{}).WithConverter(SampleConverter).Complete(); err != nil {
		return fmt.Errorf("set up the conversion webhook of Samples: %w", err)
	}
	return nil
}
