// Package samples is what the scenarios know of this project's operator, beside the harness
// that knows none of it: the operator under test as the harness runs it (Operator), what a Sample
// and its ConfigMap look like once the operator has done its job (Synced, one definition for the
// scenarios, the deployment tests and the demo alike), and the Fixture with the
// Sample's own steps and waits.
package samples

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/controllers"
)

// New is the Sample namespace/name with spec.message message, to create.
func New(namespace, name, message string) *demov1alpha1.Sample {
	return &demov1alpha1.Sample{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       demov1alpha1.SampleSpec{Message: message},
	}
}

// ConfigMapOf is the (empty) ConfigMap that sample keeps its message in, named for a Get.
func ConfigMapOf(sample *demov1alpha1.Sample) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name:      demov1alpha1.ConfigMapName(sample.Name),
		Namespace: sample.Namespace,
	}}
}

// Synced says why sample and its ConfigMap cm are not yet what the operator makes them, or nil
// when they are: cm holds spec.message, and the Sample reports Ready=True, reason Synced, for its
// current generation.
func Synced(sample *demov1alpha1.Sample, cm *corev1.ConfigMap) error {
	if got := cm.Data[demov1alpha1.MessageKey]; got != sample.Spec.Message {
		return fmt.Errorf("ConfigMap %s holds message %s, Sample %s wants %s", cm.Name, messageDiff(got, sample.Spec.Message), sample.Name, messageDiff(sample.Spec.Message, got))
	}
	if sample.Status.ObservedGeneration != sample.Generation {
		return fmt.Errorf("the status of Sample %s describes generation %d, its spec is at %d", sample.Name, sample.Status.ObservedGeneration, sample.Generation)
	}
	ready := meta.FindStatusCondition(sample.Status.Conditions, demov1alpha1.ConditionReady)
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.Reason != demov1alpha1.ReasonSynced {
		return fmt.Errorf("the Ready condition of Sample %s is not True, reason %s: %+v", sample.Name, demov1alpha1.ReasonSynced, ready)
	}
	return nil
}

// messageDiff is message a as a failure shows it beside b: quoted whole when short; when long, its
// length in characters and bytes and the characters from where it parts from b.
func messageDiff(a, b string) string {
	const short = 64
	if len(a) <= short && len(b) <= short {
		return strconv.Quote(a)
	}
	ra, rb := []rune(a), []rune(b)
	at := 0
	for at < len(ra) && at < len(rb) && ra[at] == rb[at] {
		at++
	}
	return fmt.Sprintf("of %d characters (%d bytes), from character %d on %q", len(ra), len(a), at, string(ra[at:min(len(ra), at+8)]))
}

// Check reads sample and its ConfigMap afresh, and says as Synced does why they are not synced.
func Check(ctx context.Context, c client.Client, sample *demov1alpha1.Sample) (*corev1.ConfigMap, error) {
	cm := ConfigMapOf(sample)
	if err := c.Get(ctx, client.ObjectKeyFromObject(sample), sample); err != nil {
		return cm, err
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
		return cm, err
	}
	return cm, Synced(sample, cm)
}

// Managed selects the ConfigMaps the operator writes: a cluster has others in every namespace
// (kube-root-ca.crt, which kube-controller-manager publishes there for Pods' tokens).
var Managed = client.MatchingLabels{controllers.ManagedByLabel: controllers.ManagedByValue}

// CountSynced counts the Samples in namespace that are synced, as Synced says.
func CountSynced(ctx context.Context, c client.Client, namespace string) (int, error) {
	samples := &demov1alpha1.SampleList{}
	cms := &corev1.ConfigMapList{}
	if err := c.List(ctx, samples, client.InNamespace(namespace)); err != nil {
		return 0, err
	}
	if err := c.List(ctx, cms, client.InNamespace(namespace)); err != nil {
		return 0, err
	}
	byName := make(map[string]*corev1.ConfigMap, len(cms.Items))
	for i := range cms.Items {
		byName[cms.Items[i].Name] = &cms.Items[i]
	}
	n := 0
	for i := range samples.Items {
		if cm, ok := byName[demov1alpha1.ConfigMapName(samples.Items[i].Name)]; ok && Synced(&samples.Items[i], cm) == nil {
			n++
		}
	}
	return n, nil
}

// MergePatch sends a JSON merge patch to the object namespace/name of obj's kind, as
// `kubectl patch --type merge` does, and reads the result into obj.
func MergePatch(ctx context.Context, c client.Client, obj client.Object, namespace, name, patch string) error {
	obj.SetNamespace(namespace)
	obj.SetName(name)
	return c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch)))
}
