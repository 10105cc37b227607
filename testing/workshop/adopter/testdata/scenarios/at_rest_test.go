package scenarios

import (
	"example.com/operator-demo/testing/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.org/widgets/scenarios/widgets"
)

var _ = Describe("Widget", Label("at-rest"), func() {
	Context("when a reconcile finds nothing to change", func() {
		It("sends no API write and moves no resourceVersion", func(ctx SpecContext) {
			f := harness.NewFixture(ctx, suiteCluster)
			widget := widgets.New(f.Namespace, "gear", "bar")
			Expect(f.Client.Create(ctx, widget)).To(Succeed())
			child := &corev1.ConfigMap{}
			f.Eventually(ctx, func(g Gomega) {
				g.Expect(f.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: "gear-child"}, child)).To(Succeed())
				g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(widget), widget)).To(Succeed())
				g.Expect(widget.Status.Conditions).To(ContainElement(HaveField("Type", "Ready")))
			}).Should(Succeed())
			settled := f.EventuallySettled(ctx)

			By("annotating its ConfigMap, which starts a reconcile that has nothing to do")
			child.Annotations = map[string]string{"example.org/touched": "yes"}
			Expect(f.Client.Update(ctx, child)).To(Succeed())
			Eventually(f.Operator.Read).Should(HaveField("Reconciles", BeNumerically(">", settled.Reconciles)))

			By("watching that the operator writes nothing")
			f.ExpectAtRest(ctx, HaveField("Writes", settled.Writes), widget, child)
		})
	})
})
