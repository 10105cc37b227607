package scenarios

import (
	"time"

	"example.com/operator-demo/testing/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	"example.org/widgets/scenarios/widgets"
)

var _ = Describe("Widget", Label("synced"), func() {
	Context("when its ConfigMap holds spec.foo", func() {
		It("reports Ready, since the time it first did", func(ctx SpecContext) {
			then := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			f := harness.NewFixture(ctx, suiteCluster, harness.With[clock.PassiveClock](widgets.Clock, clocktesting.NewFakePassiveClock(then)))
			widget := widgets.New(f.Namespace, "dated", "bar")
			Expect(f.Client.Create(ctx, widget)).To(Succeed())
			f.Eventually(ctx, komega.Object(widget)).Should(HaveField("Status.Conditions", ContainElement(And(
				HaveField("Type", "Ready"),
				HaveField("Status", metav1.ConditionTrue),
				HaveField("LastTransitionTime.Time", BeTemporally("==", then)),
			))))
		})
	})
})
