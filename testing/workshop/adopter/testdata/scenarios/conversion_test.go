package scenarios

import (
	"example.com/operator-demo/testing/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	shopv2 "example.org/widgets/api/v2"
	"example.org/widgets/scenarios/widgets"
)

var _ = Describe("Widget", Label("conversion"), func() {
	Context("when one written as v1 is read as v2", func() {
		It("has v1's spec.foo as spec.value", func(ctx SpecContext) {
			f := harness.NewFixture(ctx, suiteCluster)
			widget := widgets.New(f.Namespace, "shape", "bar")
			Expect(f.Client.Create(ctx, widget)).To(Succeed())

			read := &shopv2.Widget{}
			Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(widget), read)).To(Succeed())
			Expect(read.Spec.Value).To(Equal(ptr.To("bar")), "spec.value of Widget %s read through v2, as the conversion webhook converts v1's spec.foo", widget.Name)
		})
	})
})
