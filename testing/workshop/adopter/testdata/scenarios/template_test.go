package scenarios

import (
	"example.com/operator-demo/testing/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	shopv1 "example.org/widgets/api/v1"
)

var _ = Describe("Widget", Label("template"), func() {
	Context("when its spec holds a Pod template", func() {
		It("keeps the template's labels, and labels its ConfigMap with them", func(ctx SpecContext) {
			f := harness.NewFixture(ctx, suiteCluster)
			labels := map[string]string{"app": "gear"}
			widget := &shopv1.Widget{
				ObjectMeta: metav1.ObjectMeta{Name: "templated", Namespace: f.Namespace},
				Spec: shopv1.WidgetSpec{Template: &corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
				}},
			}
			Expect(f.Client.Create(ctx, widget)).To(Succeed())
			Expect(widget.Spec.Template.Labels).To(Equal(labels), "the template's labels as the API server stored them: "+
				"it drops them where the CRD has the template's metadata as a bare object (make manifests without crd:generateEmbeddedObjectMeta=true)")

			child := &corev1.ConfigMap{}
			f.Eventually(ctx, func(g Gomega) {
				g.Expect(f.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: "templated-child"}, child)).To(Succeed())
				g.Expect(child.Labels).To(Equal(labels))
			}).Should(Succeed())
		})
	})
})
