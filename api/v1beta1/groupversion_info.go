// Package v1beta1 holds the Sample API of group demo.example.com, version v1beta1: the hub of the
// Sample's versions, which every other version converts to and from (Hub), and the version the API
// server stores. Its spec holds data, a map of ConfigMap keys, in place of v1alpha1's single
// message.
//
// The CRD serves v1alpha1 beside it, and converts between them through the operator's conversion
// webhook (controllers.SetupWebhooks); the API server's None strategy would hand a v1beta1 object
// to v1alpha1 clients unconverted. The controller reconciles v1beta1, the version stored, so its
// own reads and writes need no conversion; it writes status with the apply configurations that
// make generate writes from this package into api/applyconfiguration. The Sample's printer
// columns are v1alpha1's, its message data["message"]: `kubectl get samples` asks for v1beta1, the
// version the API server prefers once it serves it, and prints what it printed before.
// docs/api-versions.md says what is in place and what comes next.
//
// +kubebuilder:object:generate=true
// +kubebuilder:ac:generate=true
// +kubebuilder:ac:output:package="../applyconfiguration"
// +groupName=demo.example.com
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "demo.example.com", Version: "v1beta1"}
	// SchemeGroupVersion is GroupVersion by the name that the generated apply configurations
	// (api/applyconfiguration) use.
	SchemeGroupVersion = GroupVersion
	// SchemeBuilder registers this package's kinds with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds this package's kinds to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Sample{}, &SampleList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
