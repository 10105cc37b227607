package e2e

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Manifests is the operator's deployment as rendered (config/default, kustomized): its objects
// and what the e2e tier learns from them.
type Manifests struct {
	// Objects are every object of the rendering, in order.
	Objects []*unstructured.Unstructured
	// Deployment is the operator's Deployment; Namespace is where it runs, ServiceAccount what its
	// Pods run as.
	Deployment                *appsv1.Deployment
	Namespace, ServiceAccount string
	// MetricsReaderRole is the ClusterRole that may read its metrics (GET /metrics).
	MetricsReaderRole string
	// MetricsPort is the port of the Deployment's Pods behind the Service in front of them
	// (config/default's metrics Service): its first port's target.
	MetricsPort int32
	// ConversionService is the Service that the CRD's conversion webhook names, in front of the
	// operator's webhook server (none: no CRD converts through a webhook).
	ConversionService types.NamespacedName
}

// ReadManifests reads a rendering of the operator's deployment: one Deployment with a
// serviceAccountName, a Service in front of its Pods (beside the Service its CRD's conversion
// webhook names, if any), and a ClusterRole that may GET /metrics.
func ReadManifests(rendered []byte) (Manifests, error) {
	var m Manifests
	var services []*corev1.Service
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	for {
		// As the API server reads it: integers as int64.
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(obj); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return m, fmt.Errorf("decode the operator's manifests: %w", err)
		}
		m.Objects = append(m.Objects, obj)
		var err error
		switch obj.GetKind() {
		case "Deployment":
			m.Deployment = &appsv1.Deployment{}
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, m.Deployment)
		case "Service":
			services = append(services, &corev1.Service{})
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, services[len(services)-1])
		case "CustomResourceDefinition":
			if service, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "conversion", "webhook", "clientConfig", "service"); service["name"] != "" {
				m.ConversionService = types.NamespacedName{Namespace: service["namespace"], Name: service["name"]}
			}
		case "ClusterRole":
			role := &rbacv1.ClusterRole{}
			if err = runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, role); readsMetrics(role) {
				m.MetricsReaderRole = role.Name
			}
		}
		if err != nil {
			return m, fmt.Errorf("decode %s %s of the operator's manifests: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	if m.Deployment == nil || m.Deployment.Spec.Template.Spec.ServiceAccountName == "" {
		return m, errors.New("the operator's manifests hold no Deployment with a serviceAccountName")
	}
	m.Namespace, m.ServiceAccount = m.Deployment.Namespace, m.Deployment.Spec.Template.Spec.ServiceAccountName
	// The conversion webhook's Service is in front of the same Pods: the metrics' is another.
	services = slices.DeleteFunc(services, func(svc *corev1.Service) bool {
		return types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name} == m.ConversionService
	})
	if m.MetricsPort = metricsPort(m.Deployment, services); m.MetricsPort == 0 {
		return m, errors.New("the operator's manifests hold no Service in front of its Deployment's Pods")
	}
	if m.MetricsReaderRole == "" {
		return m, errors.New("the operator's manifests hold no ClusterRole that may GET /metrics")
	}
	return m, nil
}

func readsMetrics(role *rbacv1.ClusterRole) bool {
	return slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.NonResourceURLs, "/metrics") && slices.Contains(r.Verbs, "get")
	})
}

// metricsPort is the port of deployment's Pods that the first Service in front of them forwards
// its first port to, as `kubectl port-forward service/NAME` finds it; 0 if no Service is.
func metricsPort(deployment *appsv1.Deployment, services []*corev1.Service) int32 {
	pods := labels.Set(deployment.Spec.Template.Labels)
	for _, svc := range services {
		if len(svc.Spec.Selector) == 0 || len(svc.Spec.Ports) == 0 || svc.Namespace != deployment.Namespace ||
			!labels.SelectorFromSet(svc.Spec.Selector).Matches(pods) {
			continue
		}
		port := svc.Spec.Ports[0]
		if port.TargetPort.Type == intstr.Int {
			return cmp.Or(port.TargetPort.IntVal, port.Port)
		}
		for _, c := range deployment.Spec.Template.Spec.Containers {
			if i := slices.IndexFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == port.TargetPort.StrVal }); i >= 0 {
				return c.Ports[i].ContainerPort
			}
		}
	}
	return 0
}
