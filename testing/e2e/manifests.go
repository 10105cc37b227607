package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
}

// ReadManifests reads a rendering of the operator's deployment: one Deployment with a
// serviceAccountName, and a ClusterRole that may GET /metrics.
func ReadManifests(rendered []byte) (Manifests, error) {
	var m Manifests
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return m, fmt.Errorf("decode the operator's manifests: %w", err)
		}
		if obj.GetKind() == "" {
			continue
		}
		m.Objects = append(m.Objects, obj)
		switch {
		case obj.GetKind() == "Deployment":
			m.Deployment, m.Namespace = obj, obj.GetNamespace()
			m.ServiceAccount, _, _ = unstructured.NestedString(obj.Object, "spec", "template", "spec", "serviceAccountName")
		case obj.GetKind() == "ClusterRole" && readsMetrics(obj):
			m.MetricsReaderRole = obj.GetName()
		}
	}
	if m.ServiceAccount == "" {
		return m, errors.New("the operator's manifests hold no Deployment with a serviceAccountName")
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
