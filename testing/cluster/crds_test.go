package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"example.com/operator-demo/testing/operator"
)

// Widget is a kind as an operator's api/ declares it.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Foo     string            `json:"foo"`
	Suspend bool              `json:"suspend,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
}

type WidgetStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object { c := *w; return &c }

// widgetCRD is Widget's CRD as controller-gen wrote it before spec.suspend was added.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
spec:
  group: example.org
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            properties:
              foo: {type: string}
              labels: {type: object, additionalProperties: {type: string}}
          status:
            type: object
            properties:
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
                    reason: {type: string}
                    message: {type: string}
                    lastTransitionTime: {type: string, format: date-time}
                    observedGeneration: {type: integer}
`

// TestACRDOlderThanTheAPIIsRefused: a field the Go type declares and the CRD lacks (the API
// server would prune it) fails the suite's start, naming the field and the command that mends it.
func TestACRDOlderThanTheAPIIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	s := runtime.NewScheme()
	s.AddKnownTypes(schema.GroupVersion{Group: "example.org", Version: "v1"}, &Widget{})
	err := CheckCRDs(operator.Subject{Scheme: s, CRDs: []string{dir}})
	if err == nil || !strings.Contains(err.Error(), "lack Widget spec.suspend, which the Go types declare") || !strings.Contains(err.Error(), "make manifests") {
		t.Errorf("CheckCRDs = %v, want it to name spec.suspend and make manifests", err)
	}
	if strings.Contains(err.Error(), "conditions") {
		t.Errorf("CheckCRDs names a field the CRD has: %v", err)
	}

	current := strings.Replace(widgetCRD, "              foo: {type: string}\n", "              foo: {type: string}\n              suspend: {type: boolean}\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(current), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckCRDs(operator.Subject{Scheme: s, CRDs: []string{dir}}); err != nil {
		t.Errorf("CheckCRDs of the CRD regenerated: %v, want nil", err)
	}
}
