package scenarios

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/testing/harness"
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
// Article: §4.2, idempotency, pushed to its limit: any prefix of a reconcile, then the whole of it.
//
// By hand (on the demo cluster):
//
//	for i in $(seq 20); do kubectl create -f - <<< "{\"apiVersion\":\"demo.example.com/v1alpha1\",\"kind\":\"Sample\",\"metadata\":{\"name\":\"s$i\"},\"spec\":{\"message\":\"m$i\"}}"; done
//	pkill -9 -f bin/manager; make demo KEEP=1    # or delete the operator's Pod with --grace-period=0
//	kubectl get configmaps -l app.kubernetes.io/managed-by=operator-demo | wc -l
var _ = Describe("Sample", Label("killed", harness.NeedsOperatorProcess), func() {
	Context("when the operator is killed in the middle of creating ConfigMaps", func() {
		It("lets its successor create every ConfigMap exactly once", func(ctx SpecContext) {
			const n = 20
			f := harness.NewFixture(ctx, cluster)

			By(fmt.Sprintf("creating %d Samples and killing the operator while it works on them", n))
			for i := range n {
				f.CreateSample(ctx, fmt.Sprintf("s%02d", i), fmt.Sprintf("message %d", i))
			}
			f.Operator.Kill()

			By("starting a new operator")
			Expect(f.Operator.Up()).To(Succeed())

			By("waiting for every Sample's ConfigMap, each controlled by its Sample and holding its message")
			Eventually(func(g Gomega) {
				cms := &corev1.ConfigMapList{}
				g.Expect(f.Client.List(ctx, cms, client.InNamespace(f.Namespace))).To(Succeed())
				byName := map[string]corev1.ConfigMap{}
				for _, cm := range cms.Items {
					byName[cm.Name] = cm
				}
				for i := range n {
					cm, ok := byName[fmt.Sprintf("s%02d-config", i)]
					g.Expect(ok).To(BeTrue(), "ConfigMap s%02d-config", i)
					g.Expect(cm.Data).To(HaveKeyWithValue(demov1alpha1.MessageKey, fmt.Sprintf("message %d", i)))
					g.Expect(metav1.GetControllerOf(&cm)).To(HaveField("Name", fmt.Sprintf("s%02d", i)))
				}
			}).WithContext(ctx).WithTimeout(harness.Failover).WithPolling(harness.Poll).Should(Succeed())

			By("checking that every Sample reports Ready")
			Eventually(func(g Gomega) {
				samples := &demov1alpha1.SampleList{}
				g.Expect(f.Client.List(ctx, samples, client.InNamespace(f.Namespace))).To(Succeed())
				g.Expect(samples.Items).To(HaveLen(n))
				g.Expect(samples.Items).To(HaveEach(HaveField("Status.Conditions", ContainElement(And(
					HaveField("Type", demov1alpha1.ConditionReady),
					HaveField("Status", metav1.ConditionTrue),
				)))))
			}).WithContext(ctx).WithTimeout(harness.Converge).WithPolling(harness.Poll).Should(Succeed())
		})
	})
})
