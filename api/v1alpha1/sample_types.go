package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// ConditionReady is the condition type that says whether the ConfigMap holds spec.message.
const ConditionReady = "Ready"

// Reasons of the Ready condition. Each reason of Ready=False says what to do about it; the
// condition's message carries the details, in the API server's own words where it refused a write.
// The operator retries every refusal with backoff, and the Sample recovers by itself once the
// cause is gone.
const (
	// ReasonSynced (Ready=True): the ConfigMap exists, is controlled by the Sample and holds
	// spec.message.
	ReasonSynced = "Synced"
	// ReasonConfigMapConflict (Ready=False): a ConfigMap of that name exists and is not controlled
	// by this Sample. It is left exactly as it is. To do: delete it to let the Sample take the
	// name, or give the Sample another name.
	ReasonConfigMapConflict = "ConfigMapConflict"
	// ReasonConfigMapRefused (Ready=False): the API server refused to create or update the
	// ConfigMap: an admission policy or webhook denied it, or the ConfigMap would be invalid. The
	// ConfigMap keeps what it held. To do: read the message, which quotes the refusal; change
	// spec.message, or ask whoever owns the policy.
	ReasonConfigMapRefused = "ConfigMapRefused"
	// ReasonQuotaExceeded (Ready=False): a ResourceQuota of the namespace allows no more
	// ConfigMaps (or no more of what they take). To do: raise the quota, or delete ConfigMaps the
	// namespace no longer needs.
	ReasonQuotaExceeded = "QuotaExceeded"
	// ReasonConfigMapForbidden (Ready=False): the operator's own permissions (RBAC) do not let it
	// write ConfigMaps in this namespace. To do: ask the cluster's administrator; the operator
	// needs what config/rbac grants.
	ReasonConfigMapForbidden = "ConfigMapForbidden"
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
