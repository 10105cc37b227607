package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/scenarios/samples"
)

// Operator down: while the operator is down, every request of a Sample in v1alpha1 fails, naming
// the conversion webhook, while v1beta1, the version stored, is served as before; once the
// operator is back, so is v1alpha1.
//
// Lesson: a conversion webhook puts the operator on the path of every request in a version that
// is not the one stored: the operator down is an outage of that version for every client, kubectl
// included, not only a pause in reconciling. What is stored needs no conversion, so the clients of
// the stored version carry on: the operator itself, which reads and writes only v1beta1, the
// garbage collector, and `kubectl get samples`, which asks for v1beta1. Keep the webhook up
// (replicas, each serving it; a PodDisruptionBudget) and move clients to the stored version.
//
// Source: beyond both sources: issue #53, the conversion webhook (docs/api-versions.md).
//
// By hand (on a cluster where `make deploy` ran):
//
//	kubectl -n operator-demo-system scale deployment operator-demo-controller-manager --replicas=0
//	kubectl get samples.v1alpha1.demo.example.com sample-sample   # Error from server: conversion webhook for demo.example.com/v1beta1, Kind=Sample failed: …
//	kubectl get samples.v1beta1.demo.example.com sample-sample    # as before
//	kubectl -n operator-demo-system scale deployment operator-demo-controller-manager --replicas=1
//	kubectl -n operator-demo-system rollout status deployment operator-demo-controller-manager
//	kubectl get samples.v1alpha1.demo.example.com sample-sample   # as before
var _ = Describe("Sample", Label("operator-down"), Serial, func() {
	Context("when the operator is down", func() {
		// Characterization: written after the outage it shows, because what fails then is the API
		// server's call of the conversion webhook, not the operator's code: it pins that the
		// Sample, the webhook back up, converts as before.
		It("cannot be read as v1alpha1, while v1beta1, the version stored, reads as before; and reads as v1alpha1 again once the operator is back", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSample(ctx, "down", "hello world")
			f.EventuallySynced(ctx, sample)
			key := client.ObjectKeyFromObject(sample)

			By("stopping the operator, and the conversion webhook it serves")
			Expect(f.Operator.Down()).To(Succeed())
			// Where this test process serves the webhooks for the operator (envtest, the local
			// e2e tier), they go down with it, as they do on a cluster with the operator's Pods.
			if webhooks := suiteCluster.Webhooks; webhooks != nil {
				DeferCleanup(webhooks.Up) // before Down: a Down that fails half-way leaves them down
				Expect(webhooks.Down()).To(Succeed())
			}

			By("reading it as v1alpha1: the API server cannot convert it")
			Eventually(ctx, func() error {
				return f.Client.Get(ctx, key, &demov1alpha1.Sample{})
			}).Should(MatchError(ContainSubstring("conversion webhook for demo.example.com/v1beta1, Kind=Sample failed")))

			By("reading it as v1beta1, the version stored: no conversion, as before")
			stored := &demov1beta1.Sample{}
			Expect(f.Client.Get(ctx, key, stored)).To(Succeed())
			Expect(stored.Spec.Data).To(Equal(map[string]string{demov1alpha1.MessageKey: "hello world"}))

			By("starting the operator again")
			if webhooks := suiteCluster.Webhooks; webhooks != nil {
				Expect(webhooks.Up()).To(Succeed())
			}
			Expect(f.Operator.Up()).To(Succeed())

			By("reading it as v1alpha1 again, once the webhook answers")
			read := &demov1alpha1.Sample{}
			Eventually(ctx, func(g Gomega) string {
				g.Expect(f.Client.Get(ctx, key, read)).To(Succeed())
				return read.Spec.Message
			}).WithTimeout(samples.ConversionReady).Should(Equal("hello world"))
		})
	})
})
