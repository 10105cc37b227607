package deployment

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"example.com/operator-demo/testing/offline/localcluster"
)

var _ = Describe("The operator, when the API server restarts", func() {
	It("reconnects, and corrects drift made after the restart", func(ctx SpecContext) {
		By("creating a Sample and waiting for its ConfigMap")
		_, key := syncedConfigMap(ctx, "outage")

		By("stopping kube-apiserver and starting it again")
		away, err := d.RestartAPIServer()
		Expect(err).NotTo(HaveOccurred())
		AddReportEntry("API server away", away.Round(100*time.Millisecond).String())

		By("editing the ConfigMap once the API server is back")
		drift(ctx, key, "drifted after the restart")

		By("waiting for the operator, its watches re-established, to restore the message")
		// Failover, not Converge: the operator's watches back off before they reconnect.
		restored(ctx, key).WithTimeout(localcluster.Failover).Should(Succeed())
	})
})
