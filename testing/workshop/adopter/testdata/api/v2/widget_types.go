package v2

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	shopv1 "example.org/widgets/api/v1"
)

// WidgetSpec is v1's, with foo renamed value.
type WidgetSpec struct {
	// value is what the Widget's ConfigMap holds (v1's foo).
	// +optional
	Value *string `json:"value,omitempty"`
	// +optional
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Widget is the Schema for the widgets API, v2.
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`
	// +required
	Spec WidgetSpec `json:"spec"`
	// status is v1's.
	// +optional
	Status shopv1.WidgetStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// WidgetList contains a list of Widget.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitzero"`
	Items           []Widget `json:"items"`
}

// ConvertTo converts this Widget to the Hub version, v1.
func (src *Widget) ConvertTo(hub conversion.Hub) error {
	dst := hub.(*shopv1.Widget)
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = shopv1.WidgetSpec{Foo: src.Spec.Value, Template: src.Spec.Template}
	dst.Status = src.Status
	return nil
}

// ConvertFrom converts the Hub version, v1, to this Widget.
func (dst *Widget) ConvertFrom(hub conversion.Hub) error {
	src := hub.(*shopv1.Widget)
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec = WidgetSpec{Value: src.Spec.Foo, Template: src.Spec.Template}
	dst.Status = src.Status
	return nil
}
