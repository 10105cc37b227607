package scenarios

import (
	"example.com/operator-demo/testing/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	shopv1 "example.org/widgets/api/v1"
	webhookv1 "example.org/widgets/internal/webhook/v1"
)

var _ = Describe("Widget", Label("defaulting"), func() {
	Context("when it is created without spec.foo", func() {
		It("gets the default foo, and a ConfigMap holding it", func(ctx SpecContext) {
			f := harness.NewFixture(ctx, suiteCluster)
			widget := &shopv1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: f.Namespace}}
			Expect(f.Client.Create(ctx, widget)).To(Succeed())
			Expect(widget.Spec.Foo).To(Equal(ptr.To(webhookv1.DefaultFoo)), "the object as created")

			By("waiting for its ConfigMap")
			child := &corev1.ConfigMap{}
			f.Eventually(ctx, func(g Gomega) {
				g.Expect(f.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: "plain-child"}, child)).To(Succeed())
				g.Expect(child.Data).To(HaveKeyWithValue("foo", webhookv1.DefaultFoo))
			}).Should(Succeed())
		})
	})
})
