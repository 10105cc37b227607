package controllers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// The label that marks the ConfigMaps this operator writes. The manager's cache selects on it, so
// the operator holds in memory only its own ConfigMaps, not every ConfigMap in the cluster.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "operator-demo"
)

// desiredConfigMap is the ConfigMap that sample asks for: the fields the operator manages and
// nothing else. The controller reference (controller and blockOwnerDeletion both true) makes the
// Sample its owner, so that deleting the Sample garbage-collects it.
func desiredConfigMap(sample *demov1alpha1.Sample) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:            demov1alpha1.ConfigMapName(sample.Name),
			Namespace:       sample.Namespace,
			Labels:          map[string]string{ManagedByLabel: ManagedByValue},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(sample, demov1alpha1.GroupVersion.WithKind("Sample"))},
		},
		Data: map[string]string{demov1alpha1.MessageKey: sample.Spec.Message},
	}
}

// withManagedFields returns current with desired's managed fields laid over it (the message key
// and the managed-by label), and whether that changed anything. Every other data key, label and
// annotation of current is kept as it is. current is not modified.
func withManagedFields(current, desired *corev1.ConfigMap) (*corev1.ConfigMap, bool) {
	merged := current.DeepCopy()
	dataChanged := overlay(&merged.Data, desired.Data)
	labelsChanged := overlay(&merged.Labels, desired.Labels)
	return merged, dataChanged || labelsChanged
}

// overlay sets every key of src in *dst, creating *dst if it is nil, and reports whether any
// value changed.
func overlay(dst *map[string]string, src map[string]string) bool {
	changed := false
	for k, v := range src {
		if old, ok := (*dst)[k]; ok && old == v {
			continue
		}
		if *dst == nil {
			*dst = make(map[string]string, len(src))
		}
		(*dst)[k] = v
		changed = true
	}
	return changed
}
