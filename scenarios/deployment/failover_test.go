package deployment

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/testing/localcluster"
	"example.com/operator-demo/testing/operator"
)

// leading is 1 when an operator holds the leader Lease, else 0 (client-go's leader election gauge).
func leading(op *operator.Operator) func() (float64, error) {
	return func() (float64, error) {
		v, _, err := op.Sum("leader_election_master_status", "name", "operator-demo.demo.example.com")
		return v, err
	}
}

var _ = Describe("Two replicas of the operator", func() {
	It("fail over when the leader is killed: the standby takes the lease and corrects drift made in the gap", func(ctx SpecContext) {
		By("starting a second replica: it waits as a standby")
		standby, err := d.StartReplica()
		Expect(err).NotTo(HaveOccurred())
		// The standby leads by the end: stopping it hands the lease back (it releases on exit).
		DeferCleanup(standby.Down)
		Eventually(leading(d.Operator)).Should(BeNumerically("==", 1))
		Eventually(leading(standby)).Should(BeZero())
		// Standby, not AtRest: long enough to see the standby try for the lease at least once.
		Consistently(leading(standby)).WithTimeout(localcluster.Standby).Should(BeZero())

		By("creating a Sample and waiting for its ConfigMap")
		cm, key := syncedConfigMap(ctx, "failover")

		By("killing the leader (kill -9: it cannot release its lease) and editing the ConfigMap in the gap")
		Expect(d.Operator.Kill()).To(Succeed())
		killed := time.Now()
		cm.Data[demov1alpha1.MessageKey] = "drifted while nobody leads"
		Expect(d.Client.Update(ctx, cm)).To(Succeed())

		By("waiting for the standby to lead, within the lease duration plus a retry period")
		// Failover, not Converge: the killed leader's lease must expire first.
		Eventually(leading(standby)).WithTimeout(localcluster.Failover).Should(BeNumerically("==", 1))
		AddReportEntry("takeover after kill -9", time.Since(killed).Round(100*time.Millisecond).String())

		By("waiting for the new leader to restore the message")
		Eventually(ctx, func(g Gomega) {
			g.Expect(d.Client.Get(ctx, key, cm)).To(Succeed())
			g.Expect(cm.Data).To(HaveKeyWithValue(demov1alpha1.MessageKey, "hello world"))
		}).Should(Succeed())

		By("bringing the killed replica back, as a standby now")
		Expect(d.Operator.Up()).To(Succeed())
		Eventually(leading(d.Operator)).Should(BeZero())
		Consistently(leading(d.Operator)).WithTimeout(localcluster.Standby).Should(BeZero()) // as above
	})
})
