package deployment

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("The operator's Pod", func() {
	It("runs in its namespace, which enforces the restricted Pod Security Standard, as config/manager says", func(ctx SpecContext) {
		By("checking that config/default labels the namespace pod-security.kubernetes.io/enforce=restricted")
		ns := &corev1.Namespace{}
		Expect(d.Client.Get(ctx, client.ObjectKey{Name: d.Namespace}, ns)).To(Succeed())
		Expect(ns.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "restricted"))

		By("checking that its Pod was admitted, scheduled to the node and Ready, under the manifest's securityContext and limits")
		// Eventually: a Pod that a previous spec replaced may still be terminating.
		Eventually(ctx, d.Pods).Should(ConsistOf(And(
			HaveField("Spec.NodeName", Not(BeEmpty())),
			HaveField("Spec.SecurityContext.RunAsNonRoot", HaveValue(BeTrue())),
			HaveField("Spec.SecurityContext.SeccompProfile.Type", corev1.SeccompProfileTypeRuntimeDefault),
			HaveField("Spec.Containers", ConsistOf(And(
				HaveField("SecurityContext.ReadOnlyRootFilesystem", HaveValue(BeTrue())),
				HaveField("SecurityContext.Capabilities.Drop", ConsistOf(corev1.Capability("ALL"))),
				HaveField("Resources.Limits", HaveKey(corev1.ResourceMemory)),
			))),
			HaveField("Status.Conditions", ContainElement(And(
				HaveField("Type", corev1.PodReady), HaveField("Status", corev1.ConditionTrue)))),
		)))
	})

	It("would be refused if it asked for privilege: the namespace does enforce", func(ctx SpecContext) {
		By("creating a copy of the Deployment whose container is privileged")
		deployment := copyOfTheDeployment("privileged-check", func(container *corev1.Container) {
			container.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true), AllowPrivilegeEscalation: ptr.To(true)}
		})
		Expect(d.Client.Create(ctx, deployment)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(d.Client.Delete(ctx, deployment)).To(Succeed()) })

		By("waiting for its ReplicaSet to report that the Pod violates the restricted standard")
		Eventually(ctx, func(g Gomega) {
			sets := &appsv1.ReplicaSetList{}
			g.Expect(d.Client.List(ctx, sets, client.InNamespace(d.Namespace), client.MatchingLabels{"check": "privileged-check"})).To(Succeed())
			g.Expect(sets.Items).To(HaveLen(1))
			g.Expect(sets.Items[0].Status.Conditions).To(ContainElement(And(
				HaveField("Type", appsv1.ReplicaSetReplicaFailure),
				HaveField("Message", ContainSubstring(`violates PodSecurity "restricted`)),
			)))
		}).Should(Succeed())
	})
})
