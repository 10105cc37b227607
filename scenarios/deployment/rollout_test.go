package deployment

import (
	"os"
	"path/filepath"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/offline/localcluster"
)

// What only a node catches, each made on purpose in a copy of the operator's Deployment: the
// rollout wait that deploys the operator (on kind too) fails, and says why.
var _ = Describe("A rollout of the operator that cannot succeed", func() {
	// The wait a copy gets: a probe's failure is seen after its initial delay and a period or two.
	const wait = 25 * time.Second

	rollout := func(ctx SpecContext, name string, change func(container *corev1.Container)) error {
		GinkgoHelper()
		deployment := copyOfTheDeployment(name, change)
		Expect(d.Client.Create(ctx, deployment)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(d.Client.Delete(ctx, deployment)).To(Succeed()) })
		return e2e.WaitRollout(ctx, d.Client, d.Namespace, name, wait)
	}

	It("fails on a memory limit below what the manager needs, naming OOMKilled and the limit", func(ctx SpecContext) {
		err := rollout(ctx, "oom-check", func(container *corev1.Container) {
			small := corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Mi")}
			container.Resources = corev1.ResourceRequirements{Limits: small, Requests: small}
		})
		Expect(err).To(MatchError(And(ContainSubstring("OOMKilled"), ContainSubstring("memory limit 8Mi"))))
	})

	It("fails on a readiness probe that asks the wrong port, naming the probe, its port and what the kubelet saw", func(ctx SpecContext) {
		err := rollout(ctx, "probe-check", func(container *corev1.Container) {
			container.ReadinessProbe.HTTPGet.Port = intstr.FromInt32(9999)
		})
		Expect(err).To(MatchError(And(ContainSubstring("Readiness probe failed"), ContainSubstring(":9999/readyz"), ContainSubstring("connection refused"))))
	})

	It("fails on an image whose USER is a name, which runAsNonRoot cannot check, naming CreateContainerConfigError", func(ctx SpecContext) {
		By("building the image from the Dockerfile with USER nonroot:nonroot instead of its numeric user")
		root, err := localcluster.Root()
		Expect(err).NotTo(HaveOccurred())
		dockerfile, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
		Expect(err).NotTo(HaveOccurred())
		named := regexp.MustCompile(`(?m)^USER .*$`).ReplaceAll(dockerfile, []byte("USER nonroot:nonroot"))
		Expect(named).NotTo(Equal(dockerfile), "the Dockerfile has no USER line")
		Expect(d.ImportImage(ctx, named, "operator-demo:nonnumeric-user")).To(Succeed())

		err = rollout(ctx, "nonroot-check", func(container *corev1.Container) { container.Image = "operator-demo:nonnumeric-user" })
		Expect(err).To(MatchError(And(ContainSubstring("CreateContainerConfigError"), ContainSubstring("non-numeric user (nonroot)"))))
	})
})
