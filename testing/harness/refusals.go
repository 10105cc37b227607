package harness

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/samples"
)

// RefuseConfigMaps makes the API server refuse every create and update of a ConfigMap in the
// fixture's namespace with message (samples.RefuseConfigMaps: a ValidatingAdmissionPolicy and its
// binding), and returns once a ConfigMap write is refused. The returned func lifts the refusal
// (deletes the binding); the policy and the binding go with the spec in any case.
func (f *Fixture) RefuseConfigMaps(ctx context.Context, message string) (lift func(context.Context)) {
	GinkgoHelper()
	policy, binding := samples.RefuseConfigMaps(f.Namespace, message)
	for _, obj := range []client.Object{policy, binding} {
		Expect(f.Client.Create(ctx, obj)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			Expect(client.IgnoreNotFound(f.Client.Delete(ctx, obj))).To(Succeed())
		})
	}
	// The API server takes a policy into account a moment after it is created: a dry run of a
	// ConfigMap create (admission runs, nothing is stored) says when.
	Eventually(ctx, func() error {
		probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "refusal-probe", Namespace: f.Namespace}}
		return f.Client.Create(ctx, probe, client.DryRunAll)
	}).Should(Satisfy(apierrors.IsInvalid))
	return func(ctx context.Context) {
		GinkgoHelper()
		Expect(f.Client.Delete(ctx, binding)).To(Succeed())
	}
}
