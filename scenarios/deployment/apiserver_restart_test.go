package deployment

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/testing/localcluster"
)

var _ = Describe("The operator, when the API server restarts", func() {
	It("reconnects, and corrects drift made after the restart", func(ctx SpecContext) {
		By("creating a Sample and waiting for its ConfigMap")
		cm, key := syncedConfigMap(ctx, "outage")

		By("stopping kube-apiserver and starting it again")
		away, err := d.RestartAPIServer()
		Expect(err).NotTo(HaveOccurred())
		AddReportEntry("API server away", away.Round(100*time.Millisecond).String())

		By("editing the ConfigMap once the API server is back")
		Eventually(ctx, func(g Gomega) {
			g.Expect(d.Client.Get(ctx, key, cm)).To(Succeed())
			cm.Data[demov1alpha1.MessageKey] = "drifted after the restart"
			g.Expect(d.Client.Update(ctx, cm)).To(Succeed())
		}).Should(Succeed())

		By("waiting for the operator, its watches re-established, to restore the message")
		// Failover, not Converge: the operator's watches back off before they reconnect.
		Eventually(ctx, func(g Gomega) {
			g.Expect(d.Client.Get(ctx, key, cm)).To(Succeed())
			g.Expect(cm.Data).To(HaveKeyWithValue(demov1alpha1.MessageKey, "hello world"))
		}).WithTimeout(localcluster.Failover).Should(Succeed())
	})
})
