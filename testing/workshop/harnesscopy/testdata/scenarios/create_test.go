package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	shopv1 "example.org/widgets/api/v1"
	"example.org/widgets/testing/harness"
)

var _ = Describe("Widget", Label("create"), func() {
	Context("when a Widget is created", func() {
		It("gets a ConfigMap holding spec.foo, controlled by it, and is then left at rest", func(ctx SpecContext) {
			f := harness.NewFixture(ctx, suiteCluster)
			widget := &shopv1.Widget{
				ObjectMeta: metav1.ObjectMeta{Name: "gear", Namespace: f.Namespace},
				Spec:       shopv1.WidgetSpec{Foo: ptr.To("bar")},
			}
			Expect(f.Client.Create(ctx, widget)).To(Succeed())

			By("waiting for its ConfigMap")
			child := &corev1.ConfigMap{}
			Eventually(ctx, func(g Gomega) {
				g.Expect(f.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: "gear-child"}, child)).To(Succeed())
				g.Expect(child.Data).To(HaveKeyWithValue("foo", "bar"))
				g.Expect(metav1.IsControlledBy(child, widget)).To(BeTrue())
			}).Should(Succeed())

			By("watching that no reconcile writes either of them again")
			settled := f.EventuallySettled(ctx)
			f.ExpectAtRest(ctx, Equal(settled), widget, child)
		})
	})
})
