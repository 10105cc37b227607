package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The bounds of spec.data. The API server refuses a Sample beyond any of them, naming spec.data,
// so that the ConfigMap the operator builds from it is always one the API server accepts: a
// ConfigMap holds at most 1 MiB, its keys and values counted in bytes (MaxDataBytes).
const (
	// MaxDataKeys bounds the number of keys of spec.data. It is what keeps the rule of MaxDataBytes
	// within the API server's cost budget of a CEL rule: at 32 keys its estimated cost is past it.
	MaxDataKeys = 16
	// MaxDataKeyLength bounds a key of spec.data, as a ConfigMap bounds its keys (253 characters
	// of letters, digits, '-', '_' and '.'; neither "." nor beginning with "..").
	MaxDataKeyLength = 253
	// MaxDataValueLength bounds a value of spec.data, in characters (Unicode code points, as the
	// API server counts a maxLength). It is v1alpha1's MaxMessageLength: every v1alpha1 message is a
	// valid value of v1beta1's data["message"], so no v1alpha1 Sample converts to an invalid one.
	MaxDataValueLength = 65536
	// MaxDataBytes bounds spec.data as a whole: its keys and values, in bytes of UTF-8, as the API
	// server counts a ConfigMap's size (1 MiB).
	MaxDataBytes = 1 << 20
)

// SampleSpec is the desired state of a Sample.
type SampleSpec struct {
	// data is what the ConfigMap "<name>-config" holds: each key of data, with its value, and no
	// other. v1alpha1's message is data["message"].
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 253 && k.matches('^[-._a-zA-Z0-9]+$') && k != '.' && !k.startsWith('..'))",message="each key must be a ConfigMap key: at most 253 characters of letters, digits, '-', '_' and '.', neither \".\" nor beginning with \"..\""
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(self[k]) <= 65536)",message="each value must be at most 65536 characters"
	// +kubebuilder:validation:XValidation:rule="self.map(k, size(bytes(k)) + size(bytes(self[k]))).sum() <= 1048576",message="keys and values must hold at most 1 MiB (1048576 bytes of UTF-8) in all, as a ConfigMap does"
	Data map[string]string `json:"data,omitempty"`
}

// SampleStatus is the observed state of a Sample, the same in every version: the conditions'
// type and reasons are package conditions'.
type SampleStatus struct {
	// observedGeneration is the metadata.generation of the Sample that this status describes.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// configMapName is the name of the ConfigMap that holds spec.data.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ConfigMapName string `json:"configMapName,omitempty"`
	// conditions describe the Sample's state. "Ready" is True when the ConfigMap holds spec.data.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Sample keeps spec.data in a ConfigMap named "<name>-config", which it controls.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 246",message="metadata.name must be at most 246 characters, so that the ConfigMap name \"<name>-config\" is at most 253"
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.spec.data.message`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Sample struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`
	// spec is the desired state of the Sample.
	// +required
	Spec SampleSpec `json:"spec"`
	// status is the observed state of the Sample, written by the operator.
	// +optional
	Status SampleStatus `json:"status,omitzero"`
}

// Hub marks v1beta1 as the version that every other version of Sample converts to and from
// (sigs.k8s.io/controller-runtime/pkg/conversion.Hub); the conversions themselves are the
// operator's, in controllers/sample_conversion.go.
func (*Sample) Hub() {}

// SampleList is a list of Samples.
//
// +kubebuilder:object:root=true
type SampleList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitzero"`
	// items are the Samples.
	Items []Sample `json:"items"`
}
