package controllers

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1beta1ac "example.com/operator-demo/api/applyconfiguration/api/v1beta1"
	"example.com/operator-demo/api/conditions"
	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// errConflict says that a ConfigMap of the Sample's ConfigMap name exists that the Sample does not
// control: it is left alone, and reported in status. It ends a pass in status and a recheck, never
// as an error of Reconcile's, so its text is shown nowhere.
var errConflict = errors.New("the ConfigMap's name is taken by one this Sample does not control")

// desiredStatus is the status that sample should have after a pass whose ConfigMap sync ended in
// syncErr (nil: the ConfigMap holds spec.data). It is the one place where status is computed.
// The Ready condition keeps its lastTransitionTime while its status stays the same, so a pass that
// changes nothing computes exactly the stored status and writes nothing: a timestamp that moved
// on every pass would make every pass a write, and every write a new pass. For the same reason a
// refusal retried computes the status its first try wrote.
func desiredStatus(sample *demov1beta1.Sample, syncErr error, now metav1.Time) demov1beta1.SampleStatus {
	status := *sample.Status.DeepCopy()
	configMap := demov1alpha1.ConfigMapName(sample.Name)
	ready, ok := readyCondition(configMap, syncErr)
	if !ok {
		return status
	}
	ready.ObservedGeneration = sample.Generation
	ready.LastTransitionTime = now
	status.ObservedGeneration = sample.Generation
	status.ConfigMapName = configMap
	meta.SetStatusCondition(&status.Conditions, ready)
	return status
}

// readyCondition is the Ready condition that a pass ending in syncErr calls for, and false for an
// error that says nothing the Sample's user can act on (a timeout, a conflict between writes, a
// lost connection, a namespace being deleted): those leave status as it was, since the retry will
// most likely get through, and a status that flapped with every hiccup would only be noise.
func readyCondition(configMap string, syncErr error) (metav1.Condition, bool) {
	ready := metav1.Condition{Type: conditions.Ready, Status: metav1.ConditionFalse}
	if syncErr == nil {
		ready.Status = metav1.ConditionTrue
		ready.Reason = conditions.ReasonSynced
		ready.Message = fmt.Sprintf("ConfigMap %s matches the Sample's spec", configMap)
		return ready, true
	}
	if errors.Is(syncErr, errConflict) {
		ready.Reason = conditions.ReasonConfigMapConflict
		ready.Message = fmt.Sprintf("ConfigMap %s exists and is not controlled by this Sample; it is left untouched: delete it to let this Sample create its own, or give the Sample another name", configMap)
		return ready, true
	}
	var refused apierrors.APIStatus
	if !errors.As(syncErr, &refused) {
		return ready, false
	}
	message := refused.Status().Message
	ready.Reason = refusalReason(syncErr, message)
	ready.Message = fmt.Sprintf("the API server refused to write ConfigMap %s: %s", configMap, message)
	return ready, ready.Reason != ""
}

// refusalReason is the reason of the Ready=False that a refused write (the API server's err, which
// says message) calls for, or "" when the user can do nothing about it.
//
// Quota and RBAC denials are both 403 Forbidden, told apart only by the API server's wording
// ("exceeded quota", `cannot create resource "configmaps"`), which is no API contract. Should a
// release word them otherwise, they fall through to ConfigMapRefused: a reason less precise, never
// a wrong one (the message still quotes the API server). TestRefusalReason holds that fallback.
func refusalReason(err error, message string) string {
	switch {
	case apierrors.IsInvalid(err) && causedBy(err, "metadata.uid"):
		// An update that named the uid of the ConfigMap read, since replaced under the same name:
		// the retry reads it afresh, and finds it someone else's, or gone.
		return ""
	case apierrors.IsInvalid(err):
		// An admission policy's denial, or a ConfigMap the API server finds invalid.
		return conditions.ReasonConfigMapRefused
	case !apierrors.IsForbidden(err), apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return ""
	case strings.Contains(message, "quota"):
		return conditions.ReasonQuotaExceeded
	case rbacDenial.MatchString(message):
		return conditions.ReasonConfigMapForbidden
	default:
		// An admission webhook's denial.
		return conditions.ReasonConfigMapRefused
	}
}

// causedBy says whether the API server's err names field among its causes.
func causedBy(err error, field string) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	return slices.ContainsFunc(status.Status().Details.Causes, func(c metav1.StatusCause) bool { return c.Field == field })
}

// rbacDenial is how the API server words a request that RBAC does not allow:
// `User "system:serviceaccount:…" cannot create resource "configmaps" in API group "" …`.
var rbacDenial = regexp.MustCompile(`cannot \w+ resource "configmaps"`)

// writeStatus writes the status that syncErr calls for, and only when it differs from the stored
// one. It applies, as FieldOwner, what the operator owns of status: observedGeneration,
// configMapName and the Ready condition, never the whole list of conditions, so that a condition
// another controller adds survives. When Ready turns False for a reason or message it did not
// have, a Warning event says so too: once for each distinct failure, however often it is retried.
func (r *SampleReconciler) writeStatus(ctx context.Context, sample *demov1beta1.Sample, syncErr error) error {
	status := desiredStatus(sample, syncErr, metav1.Now())
	if equality.Semantic.DeepEqual(status, sample.Status) {
		return nil
	}
	err := r.Status().Apply(ctx, statusApply(sample, status), client.FieldOwner(FieldOwner), client.ForceOwnership)
	switch {
	case apierrors.IsNotFound(err):
		// The Sample was deleted while this pass worked: there is no one left to tell.
		return nil
	case err != nil:
		return fmt.Errorf("write status of Sample %s/%s: %w", sample.Namespace, sample.Name, err)
	}
	after := sample.DeepCopy()
	after.Status = status
	r.recordFailure(sample, after)
	return nil
}

// statusApply is the part of status that the operator owns, as an apply of sample's status.
func statusApply(sample *demov1beta1.Sample, status demov1beta1.SampleStatus) *demov1beta1ac.SampleApplyConfiguration {
	owned := demov1beta1ac.SampleStatus().
		WithObservedGeneration(status.ObservedGeneration).
		WithConfigMapName(status.ConfigMapName)
	if ready := meta.FindStatusCondition(status.Conditions, conditions.Ready); ready != nil {
		owned.WithConditions(metav1ac.Condition().
			WithType(ready.Type).
			WithStatus(ready.Status).
			WithObservedGeneration(ready.ObservedGeneration).
			WithLastTransitionTime(ready.LastTransitionTime).
			WithReason(ready.Reason).
			WithMessage(ready.Message))
	}
	return demov1beta1ac.Sample(sample.Name, sample.Namespace).WithStatus(owned)
}

// recordFailure records a Warning event, with the Ready condition's reason and message, when the
// condition went from before's to a Ready=False that says something new.
func (r *SampleReconciler) recordFailure(before, after *demov1beta1.Sample) {
	was := meta.FindStatusCondition(before.Status.Conditions, conditions.Ready)
	now := meta.FindStatusCondition(after.Status.Conditions, conditions.Ready)
	if now == nil || now.Status != metav1.ConditionFalse {
		return
	}
	if was != nil && was.Status == now.Status && was.Reason == now.Reason && was.Message == now.Message {
		return
	}
	r.Recorder.Eventf(after, nil, corev1.EventTypeWarning, now.Reason, "SyncConfigMap", "%s", now.Message)
}
