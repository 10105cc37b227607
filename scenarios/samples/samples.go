// Package samples is what the scenarios know of this project's operator, beside the harness
// that knows none of it: the operator under test as the harness runs it (Operator), what a Sample
// and its ConfigMap look like once the operator has done its job (Synced, one definition for the
// scenarios, the deployment tests and the demo alike), and the Fixture with the
// Sample's own steps and waits.
package samples

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/controllers"
)

// New is the Sample namespace/name with spec.message message, to create.
func New(namespace, name, message string) *demov1alpha1.Sample {
	return &demov1alpha1.Sample{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       demov1alpha1.SampleSpec{Message: message},
	}
}

// NewData is the v1beta1 Sample namespace/name with spec.data data, to create.
func NewData(namespace, name string, data map[string]string) *demov1beta1.Sample {
	return &demov1beta1.Sample{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       demov1beta1.SampleSpec{Data: data},
	}
}

// ConfigMapOf is the (empty) ConfigMap that sample, of either version, keeps its data in, named
// for a Get.
func ConfigMapOf(sample client.Object) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name:      demov1alpha1.ConfigMapName(sample.GetName()),
		Namespace: sample.GetNamespace(),
	}}
}

// Synced says why sample, a *Sample of either version, and its ConfigMap cm are not yet what the
// operator makes them, or nil when they are: cm holds each key of the Sample's data (v1alpha1's
// message is its key "message"), and the Sample reports Ready=True, reason Synced, for its current
// generation.
func Synced(sample client.Object, cm *corev1.ConfigMap) error {
	data, _, observed, conditions, err := read(sample)
	if err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(data)) {
		got, ok := cm.Data[key]
		if !ok {
			return fmt.Errorf("ConfigMap %s holds no %s, Sample %s wants %s", cm.Name, key, sample.GetName(), messageDiff(data[key], ""))
		}
		if got != data[key] {
			return fmt.Errorf("ConfigMap %s holds %s %s, Sample %s wants %s", cm.Name, key, messageDiff(got, data[key]), sample.GetName(), messageDiff(data[key], got))
		}
	}
	if observed != sample.GetGeneration() {
		return fmt.Errorf("the status of Sample %s describes generation %d, its spec is at %d", sample.GetName(), observed, sample.GetGeneration())
	}
	ready := meta.FindStatusCondition(conditions, demov1alpha1.ConditionReady)
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.Reason != demov1alpha1.ReasonSynced {
		return fmt.Errorf("the Ready condition of Sample %s is not True, reason %s: %+v", sample.GetName(), demov1alpha1.ReasonSynced, ready)
	}
	return nil
}

// read is what the checks read of a Sample of either version, as a value or a pointer: its data
// (v1alpha1's message is its key "message"), its generation, the generation its status observed,
// and its conditions.
func read(sample any) (data map[string]string, generation, observed int64, conditions []metav1.Condition, err error) {
	switch s := sample.(type) {
	case demov1alpha1.Sample:
		return read(&s)
	case demov1beta1.Sample:
		return read(&s)
	case *demov1alpha1.Sample:
		return map[string]string{demov1alpha1.MessageKey: s.Spec.Message}, s.Generation, s.Status.ObservedGeneration, s.Status.Conditions, nil
	case *demov1beta1.Sample:
		return s.Spec.Data, s.Generation, s.Status.ObservedGeneration, s.Status.Conditions, nil
	default:
		return nil, 0, 0, nil, fmt.Errorf("%T is not a Sample of either version", sample)
	}
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
func Check(ctx context.Context, c client.Client, sample client.Object) (*corev1.ConfigMap, error) {
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
	samples := &demov1beta1.SampleList{} // the version stored: no conversion, however many
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
