package scenarios

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/offline/localcluster"
)

// Killed mid-run: an operator killed without warning while it works leaves nothing that its
// successor cannot finish.
//
// Lesson: a process can die between any two API calls: after creating one ConfigMap and before
// the next, after writing a ConfigMap and before its status. Nothing the operator needs lives in
// its memory: the next process reads the cluster and finishes the job, creating each ConfigMap
// once (the name is the Sample's, and Create of an existing name fails) and losing none. With
// leader election it first waits for the dead leader's lease to expire.
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §4.2, idempotency, pushed to its limit: any prefix of a reconcile, then the whole of
// it.
//
// By hand (on a cluster where `make deploy` ran):
//
//	for i in $(seq 300); do kubectl create -f - <<< "{\"apiVersion\":\"demo.example.com/v1alpha1\",\"kind\":\"Sample\",\"metadata\":{\"name\":\"s$i\"},\"spec\":{\"message\":\"m$i\"}}"; done
//	kubectl -n operator-demo-system delete pod -l control-plane=controller-manager --grace-period=0 --force
//	kubectl get configmaps -l app.kubernetes.io/managed-by=operator-demo --no-headers | wc -l   # 300, once the new Pod leads
var _ = Describe("Sample", Label("killed-mid-run", tiers.NeedsKill), func() {
	Context("when the operator is killed in the middle of creating ConfigMaps", func() {
		It("lets its successor create every ConfigMap exactly once", func(ctx SpecContext) {
			// More than the operator's client burst (100 per resource) lets through at once: its
			// rate limiter then spreads the rest over seconds, and the kill lands mid-run.
			const n = 300
			f := samples.NewFixture(ctx, suiteCluster)

			By("stopping the operator and creating 300 Samples, as v1beta1: the version stored needs no conversion, which the operator serves")
			Expect(f.Operator.Down()).To(Succeed())
			for i := range n {
				f.CreateSampleData(ctx, fmt.Sprintf("s%03d", i), map[string]string{demov1alpha1.MessageKey: fmt.Sprintf("message %d", i)})
			}

			By("starting the operator and killing it (kill -9) once it has created some of their ConfigMaps, not all")
			Expect(f.Operator.Up()).To(Succeed())
			// Polled every 10 ms, not every Poll: the kill must land while the operator is still creating.
			Eventually(ctx, func(g Gomega) {
				cms := &corev1.ConfigMapList{}
				g.Expect(f.Client.List(ctx, cms, client.InNamespace(f.Namespace), samples.Managed)).To(Succeed())
				g.Expect(cms.Items).NotTo(BeEmpty())
			}).WithPolling(10 * time.Millisecond).Should(Succeed())
			Expect(f.Operator.Kill()).To(Succeed())
			cms := &corev1.ConfigMapList{}
			Expect(f.Client.List(ctx, cms, client.InNamespace(f.Namespace), samples.Managed)).To(Succeed())
			Expect(len(cms.Items)).To(BeNumerically("<", n), "the operator had finished before it was killed")

			By("starting a new operator")
			Expect(f.Operator.Up()).To(Succeed())

			By("waiting for every Sample's ConfigMap, each controlled by its Sample and holding its message")
			// Failover, not Converge: the new operator first waits for the killed one's lease to expire.
			f.Eventually(ctx, func(g Gomega) {
				cms := &corev1.ConfigMapList{}
				g.Expect(f.Client.List(ctx, cms, client.InNamespace(f.Namespace), samples.Managed)).To(Succeed())
				byName := map[string]corev1.ConfigMap{}
				for _, cm := range cms.Items {
					byName[cm.Name] = cm
				}
				for i := range n {
					cm, ok := byName[fmt.Sprintf("s%03d-config", i)]
					g.Expect(ok).To(BeTrue(), "ConfigMap s%03d-config", i)
					g.Expect(cm.Data).To(HaveKeyWithValue(demov1alpha1.MessageKey, fmt.Sprintf("message %d", i)))
					g.Expect(metav1.GetControllerOf(&cm)).To(HaveField("Name", fmt.Sprintf("s%03d", i)))
				}
			}).WithTimeout(localcluster.Failover).Should(Succeed())

			By("checking that every Sample reports Ready")
			f.EventuallyEverySample(ctx, n, metav1.ConditionTrue, demov1alpha1.ReasonSynced)
		})
	})
})
