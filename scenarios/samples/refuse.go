package samples

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/controlplane"
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

// OperatorRole is the ClusterRole config/rbac grants the operator (controller-gen's role.yaml,
// from the +kubebuilder:rbac markers), as the repository has it.
func OperatorRole() (*rbacv1.ClusterRole, error) {
	role := &rbacv1.ClusterRole{}
	return role, ReadManifest(filepath.Join("config", "rbac", "role.yaml"), role)
}

// ReadManifest decodes the repository's manifest at path (from its root, found upwards from the
// working directory) into obj, strictly: a field obj's type lacks is an error.
func ReadManifest(path string, obj any) error {
	found, err := controlplane.Find(path)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(found)
	if err != nil {
		return fmt.Errorf("read %s: %w", found, err)
	}
	if err := yaml.UnmarshalStrict(b, obj); err != nil {
		return fmt.Errorf("decode %s: %w", found, err)
	}
	return nil
}

// withoutConfigMapVerb is rules with verb taken from every rule on ConfigMaps.
func withoutConfigMapVerb(rules []rbacv1.PolicyRule, verb string) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	for _, r := range rules {
		r = *r.DeepCopy()
		if slices.Contains(r.APIGroups, corev1.GroupName) && slices.Contains(r.Resources, "configmaps") {
			r.Verbs = slices.DeleteFunc(r.Verbs, func(v string) bool { return v == verb })
		}
		out = append(out, r)
	}
	return out
}

// ForbidConfigMaps gives the operator that the fixture then runs a user of its own, whose RBAC is
// what config/rbac grants (OperatorRole) minus verb on ConfigMaps ("patch": it may write none, each
// write being a server-side apply): a ClusterRole, bound to that user, that the API server enforces
// before the option is returned. Pass the option to NewFixture: the operator's client impersonates
// the user (only an operator in the test process can: label the spec
// tiers.NeedsInProcessOperator). The returned func grants verb back, all that config/rbac grants;
// the role and its binding go with the spec in any case.
func ForbidConfigMaps(ctx context.Context, c client.Client, verb string) (harness.Change, func(context.Context)) {
	GinkgoHelper()
	granted, err := OperatorRole()
	Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "operator-demo-cannot-" + verb + "-configmaps-"},
		Rules:      withoutConfigMapVerb(granted.Rules, verb),
	}
	Expect(c.Create(ctx, role)).To(Succeed())
	user := role.Name
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	Expect(c.Create(ctx, binding)).To(Succeed())
	for _, obj := range []client.Object{role, binding} {
		DeferCleanup(func(ctx SpecContext) {
			Expect(client.IgnoreNotFound(c.Delete(ctx, obj))).To(Succeed())
		})
	}
	// RBAC takes effect a moment after it is written: wait until the user may watch Samples (the
	// binding is seen) and may not verb ConfigMaps.
	Eventually(ctx, func(g Gomega) {
		g.Expect(may(ctx, c, user, "watch", "demo.example.com", "samples")).To(BeTrue(), "%s may watch Samples", user)
		g.Expect(may(ctx, c, user, verb, corev1.GroupName, "configmaps")).To(BeFalse(), "%s may %s ConfigMaps", user, verb)
	}).Should(Succeed())
	impersonate := harness.WithClientConfig(func(cfg *rest.Config) *rest.Config {
		cfg = rest.CopyConfig(cfg)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		return cfg
	})
	return impersonate, func(ctx context.Context) {
		GinkgoHelper()
		role.Rules = granted.Rules
		Expect(c.Update(ctx, role)).To(Succeed())
		Eventually(ctx, func() (bool, error) { return may(ctx, c, user, verb, corev1.GroupName, "configmaps") }).Should(BeTrue())
	}
}

// may says whether RBAC lets user verb resource of group in every namespace, as the API server
// answers a SubjectAccessReview.
func may(ctx context.Context, c client.Client, user, verb, group, resource string) (bool, error) {
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               user,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource},
	}}
	if err := c.Create(ctx, review); err != nil {
		return false, fmt.Errorf("ask whether %s may %s %s: %w", user, verb, resource, err)
	}
	return review.Status.Allowed, nil
}
