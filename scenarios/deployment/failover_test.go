package deployment

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/offline/localcluster"
)

var _ = Describe("The operator's Deployment", func() {
	It("with two replicas, fails over when the leader is killed: a new leader takes the lease once the killed one's expires, and corrects drift made in the gap", func(ctx SpecContext) {
		By("scaling the Deployment to two replicas: one leads, the other waits as a standby")
		Expect(d.Scale(ctx, 2)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(d.Scale(ctx, 1)).To(Succeed()) })
		Eventually(ctx, func() (string, error) { return leader(ctx) }).Should(Not(BeEmpty()))
		first, err := leader(ctx)
		Expect(err).NotTo(HaveOccurred())
		// Standby, not AtRest: long enough to see the standby try for the lease at least once.
		Consistently(ctx, func() (string, error) { return leader(ctx) }).WithTimeout(localcluster.Standby).Should(Equal(first))

		By("creating a Sample and waiting for its ConfigMap")
		cm, key := syncedConfigMap(ctx, "failover")

		By("killing the leader's container (SIGKILL, on the node: it cannot release its lease) and editing the ConfigMap in the gap")
		pod := &corev1.Pod{}
		Expect(d.Client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: podOf(first)}, pod)).To(Succeed())
		Expect(d.KillPod(ctx, pod)).To(Succeed())
		killed := time.Now()
		cm.Data[demov1alpha1.MessageKey] = "drifted while nobody leads"
		Expect(d.Client.Update(ctx, cm)).To(Succeed())

		By("waiting for a new leader, within the lease duration plus a retry period: the standby, or the killed container restarted by the kubelet, whichever tries first")
		// Failover, not Converge: the killed leader's lease must expire first.
		Eventually(ctx, func() (string, error) { return leader(ctx) }).WithTimeout(localcluster.Failover).
			Should(And(Not(BeEmpty()), Not(Equal(first))))
		AddReportEntry("takeover after SIGKILL", time.Since(killed).Round(100*time.Millisecond).String())
		next, err := leader(ctx)
		Expect(err).NotTo(HaveOccurred())

		By("waiting for the new leader to restore the message")
		restored(ctx, key).Should(Succeed())

		By("seeing the kubelet restart the killed container, and the new leader keep the lease")
		Eventually(ctx, func(g Gomega) {
			g.Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
			g.Expect(pod.Status.ContainerStatuses).To(ConsistOf(HaveField("RestartCount", BeNumerically(">=", 1))))
		}).WithTimeout(localcluster.Failover).Should(Succeed())
		Consistently(ctx, func() (string, error) { return leader(ctx) }).WithTimeout(localcluster.Standby).Should(Equal(next)) // as above
	})

	It("hands over when the leader's Pod is deleted: its replacement takes the lease, which the old one released", func(ctx SpecContext) {
		By("creating a Sample and waiting for its ConfigMap")
		_, key := syncedConfigMap(ctx, "handover")
		old, err := leader(ctx)
		Expect(err).NotTo(HaveOccurred())

		By("deleting the leader's Pod, as kubectl delete pod does (SIGTERM, then its grace period)")
		Expect(d.Client.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: podOf(old)}})).To(Succeed())
		deleted := time.Now()

		By("waiting for the Deployment's new Pod to lead, well within the lease duration: the old one released it")
		Eventually(ctx, func() (string, error) { return leader(ctx) }).WithTimeout(localcluster.Failover).
			Should(And(Not(BeEmpty()), Not(Equal(old))))
		AddReportEntry("handover after a Pod deletion", time.Since(deleted).Round(100*time.Millisecond).String())

		By("editing the ConfigMap: the new leader restores it")
		drift(ctx, key, "drifted after the handover")
		restored(ctx, key).Should(Succeed())
		Expect(e2e.WaitRollout(ctx, d.Client, d.Namespace, d.Manifests.Deployment.GetName(), e2e.Rollout)).To(Succeed())
	})

	It("rolls over without refusing or leaving a Sample: each created through v1alpha1 during a rolling update is converted, the leaving Pod draining first, and synced", func(ctx SpecContext) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "rollout-"}}
		Expect(d.Client.Create(ctx, ns)).To(Succeed())
		old, err := leader(ctx)
		Expect(err).NotTo(HaveOccurred())
		replaced, err := d.Pods(ctx)
		Expect(err).NotTo(HaveOccurred())

		By("restarting the Deployment as kubectl rollout restart does")
		patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":%q}}}}}`, time.Now().Format(time.RFC3339Nano))
		Expect(d.Client.Patch(ctx, d.Manifests.Deployment.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch)))).To(Succeed())

		By("creating a Sample through v1alpha1 every 25 ms, each converted by the webhook on its way to storage, until the rollout is complete and the Pod it replaced is gone")
		created := 0
		var refused []string
		Eventually(ctx, func(g Gomega) {
			name := fmt.Sprintf("s%03d", created)
			created++
			// Each create once: one the API server refuses is recorded, with its time, never tried again.
			if err := d.Client.Create(ctx, samples.New(ns.Name, name, "message "+name)); err != nil {
				refused = append(refused, fmt.Sprintf("%s at %s: %v", name, time.Now().Format("15:04:05.000"), err))
			}
			deployment := &appsv1.Deployment{}
			g.Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(d.Manifests.Deployment), deployment)).To(Succeed())
			g.Expect(e2e.RolledOut(deployment)).To(Succeed())
			pods, err := d.Pods(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			for _, pod := range replaced {
				g.Expect(pods).NotTo(ContainElement(HaveField("UID", pod.UID)), "Pod %s, which the rollout replaces", pod.Name)
			}
		}).WithPolling(25 * time.Millisecond).WithTimeout(e2e.Rollout).Should(Succeed())
		AddReportEntry("Samples created during the rollout", created)
		Expect(refused).To(BeEmpty(), "of the %d Samples created during the rollout, those the API server refused", created)
		Eventually(ctx, func() (string, error) { return leader(ctx) }).WithTimeout(localcluster.Failover).
			Should(And(Not(BeEmpty()), Not(Equal(old))))

		By("checking that every one of them is synced")
		Eventually(ctx, func() (int, error) { return samples.CountSynced(ctx, d.Client, ns.Name) }).Should(Equal(created))
	})
})
