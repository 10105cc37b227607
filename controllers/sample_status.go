package controllers

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// conflictError says that a ConfigMap of the Sample's ConfigMap name exists that the Sample does
// not control: it is left alone, and reported.
type conflictError struct{ configMap string }

func (e *conflictError) Error() string {
	return fmt.Sprintf("ConfigMap %s exists and is not controlled by this Sample", e.configMap)
}

// DesiredStatus is the status that sample should have after a pass whose ConfigMap sync ended in
// syncErr (nil: the ConfigMap holds spec.message). It is the one place where status is computed.
// An error that says nothing the Sample's user can act on leaves the stored status as it is. The
// Ready condition keeps its lastTransitionTime while its status stays the same, so a pass that
// changes nothing computes exactly the stored status and writes nothing: a timestamp that moved
// on every pass would make every pass a write, and every write a new pass.
func DesiredStatus(sample *demov1alpha1.Sample, syncErr error, now metav1.Time) demov1alpha1.SampleStatus {
	status := *sample.Status.DeepCopy()
	ready := metav1.Condition{
		Type:               demov1alpha1.ConditionReady,
		ObservedGeneration: sample.Generation,
		LastTransitionTime: now,
	}
	configMap := demov1alpha1.ConfigMapName(sample.Name)
	var conflict *conflictError
	switch {
	case syncErr == nil:
		ready.Status = metav1.ConditionTrue
		ready.Reason = demov1alpha1.ReasonSynced
		ready.Message = fmt.Sprintf("ConfigMap %s holds spec.message", configMap)
	case errors.As(syncErr, &conflict):
		ready.Status = metav1.ConditionFalse
		ready.Reason = demov1alpha1.ReasonConfigMapConflict
		ready.Message = fmt.Sprintf("ConfigMap %s exists and is not controlled by this Sample; it is left untouched: delete it to let this Sample create its own, or give the Sample another name", configMap)
	default:
		return status
	}
	status.ObservedGeneration = sample.Generation
	status.ConfigMapName = configMap
	meta.SetStatusCondition(&status.Conditions, ready)
	return status
}

// writeStatus writes the status that syncErr calls for, and only when it differs from the stored one.
func (r *SampleReconciler) writeStatus(ctx context.Context, sample *demov1alpha1.Sample, syncErr error) error {
	status := DesiredStatus(sample, syncErr, metav1.Now())
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
