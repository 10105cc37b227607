package e2e

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// rendered is config/default as kustomize renders it, cut to what ReadManifests reads: the metrics
// Service's targetPort names the manager's container port.
const rendered = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: demo-metrics-reader
rules:
- nonResourceURLs: ["/metrics"]
  verbs: ["get"]
---
apiVersion: v1
kind: Service
metadata:
  name: demo-metrics-service
  namespace: demo-system
spec:
  selector:
    control-plane: controller-manager
  ports:
  - name: https
    port: 443
    targetPort: metrics
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo-controller-manager
  namespace: demo-system
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-manager
  template:
    metadata:
      labels:
        control-plane: controller-manager
    spec:
      serviceAccountName: demo-controller-manager
      containers:
      - name: manager
        ports:
        - name: metrics
          containerPort: 8443
`

func TestReadManifestsFindsTheMetricsPortBehindTheService(t *testing.T) {
	m, err := ReadManifests([]byte(rendered))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Objects) != 3 || m.Deployment.Name != "demo-controller-manager" || m.Namespace != "demo-system" ||
		m.ServiceAccount != "demo-controller-manager" || m.MetricsReaderRole != "demo-metrics-reader" {
		t.Errorf("ReadManifests = %d objects, Deployment %s/%s, ServiceAccount %s, metrics reader %q",
			len(m.Objects), m.Namespace, m.Deployment.Name, m.ServiceAccount, m.MetricsReaderRole)
	}
	if m.MetricsPort != 8443 {
		t.Errorf("MetricsPort = %d, want 8443: the container port the Service's targetPort names", m.MetricsPort)
	}

	elsewhere := strings.Replace(rendered, "    control-plane: controller-manager\n  ports:", "    control-plane: someone-else\n  ports:", 1)
	if _, err := ReadManifests([]byte(elsewhere)); err == nil || !strings.Contains(err.Error(), "no Service in front of its Deployment's Pods") {
		t.Errorf("a Service that selects other Pods: ReadManifests = %v, want no Service in front of the Pods", err)
	}
}

// withWebhook is rendered with what serves the CRD's conversion webhook on a cluster, as
// config/default renders it: the CRD naming the webhook Service, which comes before the metrics
// Service, in front of the same Pods, and forwards to their webhook port.
var withWebhook = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: samples.demo.example.com
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          name: demo-webhook-service
          namespace: demo-system
          path: /convert
---
apiVersion: v1
kind: Service
metadata:
  name: demo-webhook-service
  namespace: demo-system
spec:
  selector:
    control-plane: controller-manager
  ports:
  - port: 443
    targetPort: webhook-server
---
` + strings.Replace(rendered, "        - name: metrics\n", "        - name: webhook-server\n          containerPort: 9443\n        - name: metrics\n", 1)

func TestReadManifestsFindsTheConversionWebhooksServiceAndTheMetricsPortBesideIt(t *testing.T) {
	m, err := ReadManifests([]byte(withWebhook))
	if err != nil {
		t.Fatal(err)
	}
	if m.ConversionService != (types.NamespacedName{Namespace: "demo-system", Name: "demo-webhook-service"}) {
		t.Errorf("ConversionService = %v, want demo-system/demo-webhook-service: the Service the CRD's conversion names", m.ConversionService)
	}
	if m.MetricsPort != 8443 {
		t.Errorf("MetricsPort = %d, want 8443: the conversion webhook's Service, before the metrics Service, is not the metrics'", m.MetricsPort)
	}
	if m, err := ReadManifests([]byte(rendered)); err != nil || m.ConversionService != (types.NamespacedName{}) {
		t.Errorf("without a CRD converting through a webhook: ConversionService = %v, %v; want none", m.ConversionService, err)
	}
}
