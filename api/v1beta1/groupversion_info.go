// Package v1beta1 holds the Sample API of group demo.example.com, version v1beta1: the hub of the
// Sample's versions, which every other version converts to and from (Hub), and the version to be
// stored once a conversion webhook serves it. Its spec holds data, a map of ConfigMap keys, in
// place of v1alpha1's single message.
//
// Staged: the CRD does not serve v1beta1 yet. Serving two versions needs the conversion webhook
// (the API server's None strategy would hand a v1alpha1 object to v1beta1 clients unconverted,
// and store v1beta1's data where v1alpha1 reads a message), so until the operator serves that
// webhook, +kubebuilder:skipversion on Sample keeps this version out of config/crd and the API server never sees it.
// docs/api-versions.md says what comes next.
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
