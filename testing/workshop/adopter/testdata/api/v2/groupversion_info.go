// Package v2 is the shop v2 API: the Widget with v1's spec.foo renamed spec.value, converted to
// and from v1 by the conversion webhook.
// +kubebuilder:object:generate=true
// +groupName=shop.example.org
package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// SchemeGroupVersion is the group version of these objects.
	SchemeGroupVersion = schema.GroupVersion{Group: "shop.example.org", Version: "v2"}

	// SchemeBuilder adds them to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(func(scheme *runtime.Scheme) error {
		metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
		scheme.AddKnownTypes(SchemeGroupVersion, &Widget{}, &WidgetList{})
		return nil
	})

	// AddToScheme adds the types in this group-version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
