package deployment

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("The operator's Pod", func() {
	const namespace = "operator-demo-system"

	It("is admitted in its namespace, which enforces the restricted Pod Security Standard", func(ctx SpecContext) {
		By("checking that config/default labels the namespace pod-security.kubernetes.io/enforce=restricted")
		ns := &corev1.Namespace{}
		Expect(d.Client.Get(ctx, client.ObjectKey{Name: namespace}, ns)).To(Succeed())
		Expect(ns.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "restricted"))

		By("creating config/default's Deployment as rendered: the replicaset controller asks for its Pod")
		deployment := d.Deployment.DeepCopy()
		Expect(d.Client.Create(ctx, deployment)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(d.Client.Delete(ctx, deployment)).To(Succeed()) })

		By("waiting for the Pod: admitted by the API server (no kubelet runs it here)")
		Eventually(ctx, func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(d.Client.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
			g.Expect(pods.Items).To(HaveLen(1))
		}).Should(Succeed())
	})

	It("would be refused if it asked for privilege: the namespace does enforce", func(ctx SpecContext) {
		By("creating a copy of the Deployment whose container is privileged")
		deployment := d.Deployment.DeepCopy()
		deployment.SetName("privileged-check")
		labels := map[string]any{"check": "privileged"}
		Expect(unstructured.SetNestedMap(deployment.Object, labels, "spec", "selector", "matchLabels")).To(Succeed())
		Expect(unstructured.SetNestedMap(deployment.Object, labels, "spec", "template", "metadata", "labels")).To(Succeed())
		containers, _, err := unstructured.NestedSlice(deployment.Object, "spec", "template", "spec", "containers")
		Expect(err).NotTo(HaveOccurred())
		container, ok := containers[0].(map[string]any)
		Expect(ok).To(BeTrue(), "the Deployment's first container is not an object")
		container["securityContext"] = map[string]any{"privileged": true, "allowPrivilegeEscalation": true}
		Expect(unstructured.SetNestedSlice(deployment.Object, containers, "spec", "template", "spec", "containers")).To(Succeed())
		Expect(d.Client.Create(ctx, deployment)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(d.Client.Delete(ctx, deployment)).To(Succeed()) })

		By("waiting for its ReplicaSet to report that the Pod violates the restricted standard")
		Eventually(ctx, func(g Gomega) {
			sets := &appsv1.ReplicaSetList{}
			g.Expect(d.Client.List(ctx, sets, client.InNamespace(namespace), client.MatchingLabels{"check": "privileged"})).To(Succeed())
			g.Expect(sets.Items).To(HaveLen(1))
			g.Expect(sets.Items[0].Status.Conditions).To(ContainElement(And(
				HaveField("Type", appsv1.ReplicaSetReplicaFailure),
				HaveField("Message", ContainSubstring(`violates PodSecurity "restricted`)),
			)))
		}).Should(Succeed())
	})
})
