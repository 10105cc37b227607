package controllers

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// outcome is what one pass found for the Sample's ConfigMap.
type outcome int

const (
	// synced: the ConfigMap holds spec.message (it may have just been created or updated).
	synced outcome = iota
	// conflict: a ConfigMap of that name exists that the Sample does not control; it was left alone.
	conflict
)

// desiredStatus is the status that sample should have after a pass that ended in o. It is the one
// place where status is computed. The Ready condition keeps its lastTransitionTime while its status
// stays the same, so a pass that changes nothing computes exactly the stored status and writes
// nothing: a timestamp that moved on every pass would make every pass a write, and every write a
// new pass.
func desiredStatus(sample *demov1alpha1.Sample, o outcome, now metav1.Time) demov1alpha1.SampleStatus {
	status := *sample.Status.DeepCopy()
	status.ObservedGeneration = sample.Generation
	status.ConfigMapName = demov1alpha1.ConfigMapName(sample.Name)
	ready := metav1.Condition{
		Type:               demov1alpha1.ConditionReady,
		ObservedGeneration: sample.Generation,
		LastTransitionTime: now,
	}
	switch o {
	case synced:
		ready.Status = metav1.ConditionTrue
		ready.Reason = demov1alpha1.ReasonSynced
		ready.Message = fmt.Sprintf("ConfigMap %s holds spec.message", status.ConfigMapName)
	case conflict:
		ready.Status = metav1.ConditionFalse
		ready.Reason = demov1alpha1.ReasonConfigMapConflict
		ready.Message = fmt.Sprintf("ConfigMap %s exists and is not controlled by this Sample; it is left untouched: delete it to let this Sample create its own, or give the Sample another name", status.ConfigMapName)
	}
	meta.SetStatusCondition(&status.Conditions, ready)
	return status
}

// writeStatus writes the status that o calls for, and only when it differs from the stored one.
func (r *SampleReconciler) writeStatus(ctx context.Context, sample *demov1alpha1.Sample, o outcome) error {
	status := desiredStatus(sample, o, metav1.Now())
	if equality.Semantic.DeepEqual(status, sample.Status) {
		return nil
	}
	before := sample.DeepCopy()
	sample.Status = status
	// NotFound: the Sample was deleted while this pass worked; there is no one left to tell.
	if err := r.Status().Patch(ctx, sample, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("write status of Sample %s/%s: %w", sample.Namespace, sample.Name, err)
	}
	return nil
}
