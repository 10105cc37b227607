package samples

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

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
