package scenarios

import (
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/scenarios/samples"
)

// Concurrency: many Samples changing at once, with another writer editing their ConfigMaps, all
// converge and no one's update is lost.
//
// Lesson: the operator is one writer among several. It reconciles Samples concurrently, users
// change them while it works, and other tools write to the same ConfigMaps. Writing only the
// fields it manages, by server-side apply, is what lets each writer's change survive the others';
// reading the cluster afresh on every pass is what makes the last spec win. The scenario proves
// that all of them converge, not how fast: a lost update fails it once the operator falls quiet,
// and its waits give a loaded machine up to two minutes; BENCHMARKS.md times it.
//
// Source: the introductory Kubernetes Operator article (RevComm Advent Calendar 2025, day 2, in
// Japanese), §4, the reconcile loop: desired state in, observed state out, however many changes
// arrive while it runs.
//
// By hand (on the demo cluster):
//
//	for i in $(seq 100); do kubectl create -f - <<< "{\"apiVersion\":\"demo.example.com/v1alpha1\",\"kind\":\"Sample\",\"metadata\":{\"name\":\"c$i\"},\"spec\":{\"message\":\"v1\"}}" & done; wait
//	for i in $(seq 100); do kubectl patch samples.v1alpha1.demo.example.com c$i --type merge -p '{"spec":{"message":"v2"}}' & kubectl patch configmap c$i-config --type merge -p '{"data":{"extra":"mine"}}' & done; wait
//	kubectl get configmaps -l app.kubernetes.io/managed-by=operator-demo -o jsonpath='{range .items[*]}{.data}{"\n"}{end}' | sort | uniq -c
var _ = Describe("Sample", Label("concurrency"), SpecPriority(1), func() {
	Context("when 100 Samples are created and changed at once while another writer edits their ConfigMaps", func() {
		It("converges every ConfigMap to its Sample's last message and keeps the other writer's key", func(ctx SpecContext) {
			const n = 100
			f := samples.NewFixture(ctx, suiteCluster)
			name := func(i int) string { return fmt.Sprintf("c%03d", i) }

			By("creating 100 Samples at once")
			var creates errgroup.Group
			for i := range n {
				// v1beta1, the version stored: a hundred writes at once need no conversion.
				creates.Go(func() error {
					return f.Client.Create(ctx, samples.NewData(f.Namespace, name(i), map[string]string{demov1alpha1.MessageKey: "v1"}))
				})
			}
			Expect(creates.Wait()).To(Succeed())

			By("changing every message to v2 and then to v3, 100 at a time, while another writer adds a key to every ConfigMap")
			var wg sync.WaitGroup
			DeferCleanup(wg.Wait)
			wg.Go(func() {
				defer GinkgoRecover()
				for _, message := range []string{"v2", "v3"} {
					var patches errgroup.Group
					for i := range n {
						patches.Go(func() error {
							return samples.MergePatch(ctx, f.Client, &demov1beta1.Sample{}, f.Namespace, name(i), `{"spec":{"data":{"message":"`+message+`"}}}`)
						})
					}
					Expect(patches.Wait()).To(Succeed())
				}
			})
			f.Eventually(ctx, func(g Gomega) {
				cms := &corev1.ConfigMapList{}
				g.Expect(f.Client.List(ctx, cms, client.InNamespace(f.Namespace), samples.Managed)).To(Succeed())
				edited := 0
				for _, cm := range cms.Items {
					if cm.Data["extra"] == "other writer" {
						edited++
						continue
					}
					g.Expect(samples.MergePatch(ctx, f.Client, &corev1.ConfigMap{}, f.Namespace, cm.Name, `{"data":{"extra":"other writer"}}`)).To(Succeed())
				}
				g.Expect(edited).To(Equal(n))
			}).WithTimeout(samples.Many).Should(Succeed())
			wg.Wait()

			By("waiting for every ConfigMap to hold v3 and the other writer's key, and every Sample to be Ready")
			f.Eventually(ctx, func(g Gomega) {
				cms := &corev1.ConfigMapList{}
				g.Expect(f.Client.List(ctx, cms, client.InNamespace(f.Namespace), samples.Managed)).To(Succeed())
				g.Expect(cms.Items).To(HaveLen(n))
				g.Expect(cms.Items).To(HaveEach(HaveField("Data", Equal(map[string]string{demov1alpha1.MessageKey: "v3", "extra": "other writer"}))))
			}).WithTimeout(samples.Many).Should(Succeed())
			f.EventuallyEverySample(ctx, n, metav1.ConditionTrue, demov1alpha1.ReasonSynced)
		})
	})
})
