package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/operator-demo/api/conditions"
)

// MaxMessageLength bounds spec.message, in characters: Unicode code points, as the API server
// counts a maxLength, not bytes. At four bytes per character at most (256 KiB), a message stays far
// below the 1 MiB that a ConfigMap may hold, whatever else the ConfigMap carries.
const MaxMessageLength = 65536

// MaxNameLength bounds metadata.name so that "<name>-config" is still a valid ConfigMap name
// (a DNS subdomain of at most 253 characters).
const MaxNameLength = 253 - len(ConfigMapSuffix)

// ConfigMapSuffix is appended to a Sample's name to name its ConfigMap.
const ConfigMapSuffix = "-config"

// ConfigMapName is the name of the ConfigMap that the Sample called sampleName keeps its message in.
func ConfigMapName(sampleName string) string {
	return sampleName + ConfigMapSuffix
}

// MessageKey is the ConfigMap data key that holds spec.message.
const MessageKey = "message"

// ConversionDataAnnotation is the annotation in which a v1alpha1 Sample carries what of its v1beta1
// form v1alpha1 cannot hold, so that a read-modify-write through v1alpha1 loses none of it: the
// keys of v1beta1's spec.data other than MessageKey, and whether spec.data has MessageKey at all,
// as JSON. The conversion to v1alpha1 writes it only where there is such a thing to keep; the
// conversion back to v1beta1 restores what it holds and removes it. Leave it as it is: edit
// spec.message, or the other keys through v1beta1.
const ConversionDataAnnotation = "demo.example.com/conversion-data"

// ConditionReady is the condition type that says whether the ConfigMap holds spec.message; its
// definition, shared by every version of the Sample API, is conditions.Ready.
const ConditionReady = conditions.Ready

// Reasons of the Ready condition, as every version of the Sample API names them: each is
// documented, once, in package conditions (what it means, and what to do about it).
const (
	ReasonSynced             = conditions.ReasonSynced
	ReasonConfigMapConflict  = conditions.ReasonConfigMapConflict
	ReasonConfigMapRefused   = conditions.ReasonConfigMapRefused
	ReasonQuotaExceeded      = conditions.ReasonQuotaExceeded
	ReasonConfigMapForbidden = conditions.ReasonConfigMapForbidden
)

// SampleSpec is the desired state of a Sample.
type SampleSpec struct {
	// message is the text kept in the ConfigMap "<name>-config" under the key "message".
	// +required
	// +kubebuilder:validation:MaxLength=65536
	Message string `json:"message"`
}

// SampleStatus is the observed state of a Sample.
type SampleStatus struct {
	// observedGeneration is the metadata.generation of the Sample that this status describes.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// configMapName is the name of the ConfigMap that holds spec.message.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ConfigMapName string `json:"configMapName,omitempty"`

	// conditions describe the Sample's state. "Ready" is True when the ConfigMap holds spec.message.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// v1alpha1 is served beside v1beta1, the version the API server stores (storageversion), converted
// by the operator's webhook (docs/api-versions.md).

// Sample keeps spec.message in a ConfigMap named "<name>-config", which it controls.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 246",message="metadata.name must be at most 246 characters, so that the ConfigMap name \"<name>-config\" is at most 253"
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.spec.message`
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
