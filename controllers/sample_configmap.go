package controllers

import (
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// The label that marks the ConfigMaps this operator writes. The manager's cache selects on it, so
// the operator holds in memory only its own ConfigMaps, not every ConfigMap in the cluster.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "operator-demo"
)

// desiredConfigMap is the ConfigMap that sample asks for, as server-side apply's intent: the
// fields the operator manages and nothing else. Each key of spec.data, with its value; the
// managed-by label; and the controller reference (controller and blockOwnerDeletion both true),
// which makes the Sample its owner, so that deleting the Sample garbage-collects it.
func desiredConfigMap(sample *demov1beta1.Sample) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(demov1alpha1.ConfigMapName(sample.Name), sample.Namespace).
		WithLabels(map[string]string{ManagedByLabel: ManagedByValue}).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(demov1beta1.GroupVersion.String()).
			WithKind("Sample").
			WithName(sample.Name).
			WithUID(sample.UID).
			WithController(true).
			WithBlockOwnerDeletion(true)).
		WithData(sample.Spec.Data)
}
