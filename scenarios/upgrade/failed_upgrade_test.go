package upgrade

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/scenarios/samples/apidiscovery"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/offline/localcluster"
)

// Failed upgrade: this release's CRD applied while its operator never becomes Ready leaves the
// release before keeping its ConfigMaps in sync, but no Sample can be created or changed through
// v1alpha1 until this release serves; once it does, the upgrade completes.
//
// Lesson: an upgrade that fails half-way is not a no-op. `kubectl apply -k config/default` changes
// the CRD at once, while the Deployment's rolling update keeps the release before's Pod until the
// new one is Ready. From then on the API server stores Samples as v1beta1 and converts every write
// through v1alpha1 by calling the webhook that only this release serves. The release before reads
// what is stored as v1alpha1 and keeps its ConfigMaps in sync, but a Sample written through
// v1alpha1 (the release before's status, kubectl's edits of spec.message) fails until this release
// is Ready. Fix it forward: the cause the rollout names, then this release Ready. Or roll back by
// Rollback's procedure, if each Sample still reads by name through v1alpha1 with no webhook:
// nothing written through v1alpha1 was stored, but a v1beta1 client's write was, as v1beta1, and
// only this release can convert it back.
//
// Characterization: written after the upgrade it interrupts, when the release before could first
// be deployed from this repository's history: it shows what the API server does, not the
// operator's code.
//
// Source: beyond both sources: issue #54, a failed upgrade (docs/upgrades.md).
//
// By hand (the release before deployed, with a Sample):
//
//	kubectl apply -k config/default   # this release, with an image its node cannot pull, say
//	kubectl -n operator-demo-system rollout status deployment operator-demo-controller-manager   # never completes
//	kubectl patch samples.v1alpha1.demo.example.com sample-sample --type merge -p '{"spec":{"message":"changed"}}'   # Error from server: conversion webhook for demo.example.com/v1alpha1, Kind=Sample failed: …
//	kubectl patch configmap sample-sample-config --type merge -p '{"data":{"message":"drifted"}}'   # put back by the release before
var _ = Describe("The operator", Label("failed-upgrade", tiers.NeedsPreviousRelease), Ordered, func() {
	const namespace = "failed-upgrade"
	// d is the cluster: the release before, then this release's CRD beside it, then this release.
	// kept was written under the release before, and cm is its ConfigMap.
	var d *localcluster.LocalDeployment
	var kept *demov1alpha1.Sample
	var cm *corev1.ConfigMap

	BeforeAll(func(ctx SpecContext) {
		d = startPrevious(ctx, namespace)
		kept = samples.New(namespace, "kept", "hello world")
		Expect(d.Client.Create(ctx, kept)).To(Succeed())
		cm = fixture(d, namespace).EventuallySynced(ctx, kept)
	})

	It("keeps ConfigMaps in sync under the release before while nothing serves this release's conversion webhook, and refuses every write of a Sample through v1alpha1: its spec, its status, a new one", func(ctx SpecContext) {
		By("applying this release's CRD, whose conversion webhook nothing serves: this release's operator never becomes Ready")
		Expect(d.ReplaceCRDs(current, samples.Operator)).To(Succeed())
		Expect(d.Webhooks.Down()).To(Succeed())
		api, err := discovery.NewDiscoveryClientForConfig(d.Config)
		Expect(err).NotTo(HaveOccurred())
		Eventually(ctx, func() ([]metav1.APIResource, error) { return apidiscovery.Samples(api, "v1alpha1") }).
			Should(apidiscovery.StoredAs("v1beta1"), "the API server's discovery, announcing it stores v1beta1")

		By("running the release before, as the rolling update keeps its Pod")
		Expect(d.Deploy(ctx, previous, samples.Previous)).To(Succeed())

		By("editing the ConfigMap: the release before puts the message back")
		Expect(samples.MergePatch(ctx, d.Client, &corev1.ConfigMap{}, namespace, cm.Name, `{"data":{"message":"drifted"}}`)).To(Succeed())
		fixture(d, namespace).EventuallySynced(ctx, kept)

		By("changing the Sample's message and its status through v1alpha1, and creating another: the API server can convert none of them")
		refused := MatchError(ContainSubstring("conversion webhook for demo.example.com/v1alpha1, Kind=Sample failed"))
		Expect(samples.MergePatch(ctx, d.Client, &demov1alpha1.Sample{}, namespace, kept.Name, `{"spec":{"message":"changed"}}`)).To(refused)
		Expect(d.Client.Status().Patch(ctx, kept.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"status":{"configMapName":"changed"}}`)))).To(refused)
		Expect(d.Client.Create(ctx, samples.New(namespace, "unwritten", "hello world"))).To(refused)
	})

	It("completes the upgrade once this release serves: the Sample changed and another created, each converged, the ConfigMap the same object", func(ctx SpecContext) {
		By("deploying this release, Ready now")
		f := deploy(ctx, d, current, samples.Operator, namespace)

		By("changing the Sample's message through v1alpha1, and creating another")
		Expect(samples.MergePatch(ctx, d.Client, kept, namespace, kept.Name, `{"spec":{"message":"changed"}}`)).To(Succeed())
		created := samples.New(namespace, "created", "hello world")
		Expect(d.Client.Create(ctx, created)).To(Succeed())
		f.EventuallySynced(ctx, created)
		Expect(f.EventuallySynced(ctx, kept).UID).To(Equal(cm.UID), "ConfigMap %s was replaced", cm.Name)
	})
})
