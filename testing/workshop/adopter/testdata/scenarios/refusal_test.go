package scenarios

import (
	"example.com/operator-demo/testing/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	shopv1 "example.org/widgets/api/v1"
	"example.org/widgets/scenarios/widgets"
)

var _ = Describe("Widget", Label("refusal"), func() {
	Context("when spec.foo is forbidden", func() {
		It("is refused, with a message that names the field, and nothing is stored", func(ctx SpecContext) {
			f := harness.NewFixture(ctx, suiteCluster)
			widget := widgets.New(f.Namespace, "odd", "forbidden")
			Expect(f.Client.Create(ctx, widget)).To(MatchError(And(
				ContainSubstring(`denied the request`),
				ContainSubstring(`spec.foo: Invalid value: "forbidden"`),
			)))
			Expect(f.Client.List(ctx, &shopv1.WidgetList{})).To(Succeed())
		})
	})
})
