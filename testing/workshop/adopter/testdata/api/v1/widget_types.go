package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// WidgetSpec defines the desired state of Widget.
type WidgetSpec struct {
	// foo is what the Widget's ConfigMap holds.
	// +optional
	Foo *string `json:"foo,omitempty"`
	// template is a Pod's template, as a Deployment's or a Job's: its labels label the ConfigMap.
	// +optional
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
}

// WidgetStatus defines the observed state of Widget.
type WidgetStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion

// Widget is the Schema for the widgets API: v1, the version the others convert through (Hub).
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`
	// +required
	Spec WidgetSpec `json:"spec"`
	// +optional
	Status WidgetStatus `json:"status,omitzero"`
}

// Hub makes v1 the version that v2 converts to and from.
func (*Widget) Hub() {}

// +kubebuilder:object:root=true

// WidgetList contains a list of Widget.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitzero"`
	Items           []Widget `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(SchemeGroupVersion, &Widget{}, &WidgetList{})
		return nil
	})
}
