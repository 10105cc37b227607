package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Manifests is the operator's deployment as rendered (config/default, kustomized): its objects
// and what the e2e tier learns from them.
type Manifests struct {
	// Objects are every object of the rendering, in order.
	Objects []*unstructured.Unstructured
	// Deployment is the operator's Deployment; Namespace is where it runs, ServiceAccount what its
	// Pods run as.
	Deployment                *unstructured.Unstructured
	Namespace, ServiceAccount string
	// MetricsReaderRole is the ClusterRole that may read its metrics (GET /metrics).
	MetricsReaderRole string
	// MetricsService is the Service in front of the Deployment's Pods (config/default's metrics
	// Service), and MetricsPort its port.
	MetricsService string
	MetricsPort    int32
}

// ReadManifests reads a rendering of the operator's deployment: one Deployment with a
// serviceAccountName, a Service in front of its Pods, and a ClusterRole that may GET /metrics.
func ReadManifests(rendered []byte) (Manifests, error) {
	var m Manifests
	var services []*unstructured.Unstructured
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	for {
		var raw runtime.RawExtension
		if err := decoder.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return m, fmt.Errorf("decode the operator's manifests: %w", err)
		}
		if len(bytes.TrimSpace(raw.Raw)) == 0 || string(raw.Raw) == "null" {
			continue
		}
		// As the API server reads it: integers as int64.
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw.Raw); err != nil {
			return m, fmt.Errorf("decode the operator's manifests: %w", err)
		}
		m.Objects = append(m.Objects, obj)
		switch {
		case obj.GetKind() == "Deployment":
			m.Deployment, m.Namespace = obj, obj.GetNamespace()
			m.ServiceAccount, _, _ = unstructured.NestedString(obj.Object, "spec", "template", "spec", "serviceAccountName")
		case obj.GetKind() == "ClusterRole" && readsMetrics(obj):
			m.MetricsReaderRole = obj.GetName()
		case obj.GetKind() == "Service":
			services = append(services, obj)
		}
	}
	if m.Deployment != nil {
		m.MetricsService, m.MetricsPort = serviceOf(m.Deployment, services)
	}
	if m.ServiceAccount == "" {
		return m, errors.New("the operator's manifests hold no Deployment with a serviceAccountName")
	}
	if m.MetricsService == "" {
		return m, errors.New("the operator's manifests hold no Service in front of its Deployment's Pods")
	}
	if m.MetricsReaderRole == "" {
		return m, errors.New("the operator's manifests hold no ClusterRole that may GET /metrics")
	}
	return m, nil
}

// Username is the name the API server knows the operator by: its ServiceAccount's.
func (m Manifests) Username() string {
	return "system:serviceaccount:" + m.Namespace + ":" + m.ServiceAccount
}

// readsMetrics says whether a ClusterRole lets its holder GET /metrics.
func readsMetrics(role *unstructured.Unstructured) bool {
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	for _, r := range rules {
		rule, _ := r.(map[string]any)
		urls, _, _ := unstructured.NestedStringSlice(rule, "nonResourceURLs")
		verbs, _, _ := unstructured.NestedStringSlice(rule, "verbs")
		if slices.Contains(urls, "/metrics") && slices.Contains(verbs, "get") {
			return true
		}
	}
	return false
}

// serviceOf is the first Service whose selector picks deployment's Pods, and its first port.
func serviceOf(deployment *unstructured.Unstructured, services []*unstructured.Unstructured) (string, int32) {
	labels, _, _ := unstructured.NestedStringMap(deployment.Object, "spec", "template", "metadata", "labels")
	for _, svc := range services {
		selector, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector")
		ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
		if len(selector) == 0 || len(ports) == 0 || svc.GetNamespace() != deployment.GetNamespace() {
			continue
		}
		picks := true
		for k, v := range selector {
			picks = picks && labels[k] == v
		}
		port, _ := ports[0].(map[string]any)
		if number, ok := port["port"].(int64); picks && ok {
			return svc.GetName(), int32(number)
		}
	}
	return "", 0
}
