package scenarios

import (
	"example.com/operator-demo/testing/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.org/widgets/internal/controller"
	"example.org/widgets/scenarios/widgets"
)

var _ = Describe("Widget", Label("finalizer"), func() {
	Context("when it is deleted", func() {
		It("deletes its ConfigMap before it goes", func(ctx SpecContext) {
			f := harness.NewFixture(ctx, suiteCluster)
			widget := widgets.New(f.Namespace, "spare", "bar")
			Expect(f.Client.Create(ctx, widget)).To(Succeed())
			child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "spare-child", Namespace: f.Namespace}}
			f.Eventually(ctx, komega.Get(child)).Should(Succeed())
			f.Eventually(ctx, komega.Object(widget)).Should(HaveField("Finalizers", ContainElement(controller.Finalizer)))

			By("deleting it: the operator deletes the ConfigMap (envtest runs no garbage collector), then removes its finalizer")
			Expect(f.Client.Delete(ctx, widget)).To(Succeed())
			f.Eventually(ctx, komega.Get(child)).Should(Satisfy(apierrors.IsNotFound))
			// The Widget itself is gone once its finalizer is removed: the spec's cleanup waits
			// for that, and names the finalizers of a Widget still held.
		})
	})
})
