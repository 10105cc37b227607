package samples

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RefuseConfigMaps is a ValidatingAdmissionPolicy, and the binding that enforces it, that refuse
// every create and update of a ConfigMap in namespace with message: admission inside the API
// server, no webhook, so it works on envtest and on every cluster. Deleting the binding lifts it.
func RefuseConfigMaps(namespace, message string) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	name := "refuse-configmaps-" + namespace
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{corev1.GroupName}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"},
						},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: message}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: namespace}},
			},
		},
	}
	return policy, binding
}

// ConfigMapsRefused says whether the API server now refuses ConfigMap writes in namespace: nil
// once a dry run of a ConfigMap create (admission runs, nothing is stored) is refused as invalid.
// A policy takes effect a moment after it is created; poll this to know when.
func ConfigMapsRefused(ctx context.Context, c client.Client, namespace string) error {
	probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "refusal-probe", Namespace: namespace}}
	switch err := c.Create(ctx, probe, client.DryRunAll); {
	case apierrors.IsInvalid(err):
		return nil
	case err == nil:
		return fmt.Errorf("a ConfigMap create in %s is still accepted", namespace)
	default:
		return fmt.Errorf("a ConfigMap create in %s: %w", namespace, err)
	}
}

// RefuseConfigMaps makes the API server refuse every create and update of a ConfigMap in the
// fixture's namespace with message (RefuseConfigMaps: a ValidatingAdmissionPolicy and its
// binding), and returns once a ConfigMap write is refused. The returned func lifts the refusal
// (deletes the binding); the policy and the binding go with the spec in any case.
func (f *Fixture) RefuseConfigMaps(ctx context.Context, message string) (lift func(context.Context)) {
	GinkgoHelper()
	policy, binding := RefuseConfigMaps(f.Namespace, message)
	for _, obj := range []client.Object{policy, binding} {
		Expect(f.Client.Create(ctx, obj)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			Expect(client.IgnoreNotFound(f.Client.Delete(ctx, obj))).To(Succeed())
		})
	}
	Eventually(ctx, func() error { return ConfigMapsRefused(ctx, f.Client, f.Namespace) }).Should(Succeed())
	return func(ctx context.Context) {
		GinkgoHelper()
		Expect(f.Client.Delete(ctx, binding)).To(Succeed())
	}
}
