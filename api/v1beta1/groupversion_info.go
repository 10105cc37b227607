// Package v1beta1 holds the Sample API of group demo.example.com, version v1beta1: the hub of the
// Sample's versions, which every other version converts to and from (Hub), and the version to be
// stored in a later slice. Its spec holds data, a map of ConfigMap keys, in place of v1alpha1's
// single message.
//
// Served, not stored: the CRD serves v1beta1 beside v1alpha1, which stays the storage version, and
// converts between them through the operator's conversion webhook (controllers.SetupWebhooks);
// the API server's None strategy would hand a v1alpha1 object to v1beta1 clients unconverted.
// The controller still reconciles v1alpha1. docs/api-versions.md says what is in place and what
// comes next.
//
// +kubebuilder:object:generate=true
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
