package scenarios

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/cachelag"
)

// Refused write: when the API server refuses the operator's ConfigMap write, the Sample says so,
// in the API server's own words, and recovers by itself once the refusal is lifted.
//
// Lesson: an operator's log is read by the people who run it, not by the people who use its
// resources. An error that is returned and retried but shown nowhere a user looks is the swallowed
// error in a quieter form: not lost, but invisible to the one who can act on it. Status carries
// it: Ready=False, a reason the user can act on (ConfigMapRefused, QuotaExceeded,
// ConfigMapForbidden), and the API server's message. The error is still returned, so the retry
// with backoff, the error metric and the log stay as they are; status and a Warning event are
// written once for each distinct failure, not on every retry, and the retries find the way clear
// as soon as it is. Once: the first retry comes milliseconds after the status write, sooner than
// the operator's cache may show it; the operator's client reads its own writes (read-your-writes
// consistency), or it would take its own status for missing and write it again.
//
// Source: the Kubernetes Operator lecture notes, common failures: errors swallowed and never
// retried; and production concerns: a rate limiter that bounds the retries.
//
// By hand (on the demo cluster; the policy refuses every ConfigMap write in the default namespace):
//
//	kubectl apply -f - <<< '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"freeze"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["configmaps"]}]},"validations":[{"expression":"false","message":"ConfigMaps are frozen"}]}}'
//	kubectl apply -f - <<< '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"freeze"},"spec":{"policyName":"freeze","validationActions":["Deny"],"matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"default"}}}}}'
//	kubectl apply -f - <<< '{"apiVersion":"demo.example.com/v1alpha1","kind":"Sample","metadata":{"name":"frozen"},"spec":{"message":"hello"}}'
//	kubectl get sample frozen                              # READY False, REASON ConfigMapRefused
//	kubectl get events --field-selector reason=ConfigMapRefused   # one, with the policy's message
//	kubectl delete validatingadmissionpolicybinding freeze
//	kubectl get sample frozen -w                           # READY True within seconds
var _ = Describe("Sample", Label("refused-write"), SpecPriority(1), func() {
	Context("when an admission policy refuses its ConfigMap", func() {
		It("reports Ready=False, reason ConfigMapRefused, in the API server's words, in status and in kubectl's columns", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			f.RefuseConfigMaps(ctx, "ConfigMaps are frozen in this namespace")

			By("creating a Sample while the policy refuses its ConfigMap")
			sample := f.CreateSample(ctx, "refused", "hello world")

			By("waiting for Ready=False, reason ConfigMapRefused, with the policy's message")
			f.Eventually(ctx, komega.Object(sample)).Should(And(
				samples.HaveReady(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapRefused),
				HaveField("Status.Conditions", ContainElement(HaveField("Message", ContainSubstring("ConfigMaps are frozen in this namespace")))),
			))

			By("checking that `kubectl get samples` shows it in its READY and REASON columns")
			Expect(samples.Printed(ctx, suiteCluster.Config, sample)).To(And(
				HaveKeyWithValue("Ready", "False"),
				HaveKeyWithValue("Reason", demov1alpha1.ReasonConfigMapRefused),
			))
		})

		It("keeps returning the error, so the write is retried and counted, and writes that status and its Warning event once", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			f.RefuseConfigMaps(ctx, "ConfigMaps are frozen in this namespace")
			before := f.EventuallySettled(ctx)
			statusWrites := before.ByResource["samples/status"]
			// The counter is the process's: earlier specs' errors are in it too.
			errorsBefore, err := f.Operator.Sum("controller_runtime_reconcile_errors_total", "controller", "sample")
			Expect(err).NotTo(HaveOccurred())

			By("creating a Sample while the policy refuses its ConfigMap")
			f.CreateSample(ctx, "refused", "hello world")

			By("waiting for the operator to try the write three times, each failing")
			f.Eventually(ctx, f.Operator.Read).Should(HaveField("Reconciles", BeNumerically(">=", before.Reconciles+3)))
			errors, err := f.Operator.Sum("controller_runtime_reconcile_errors_total", "controller", "sample")
			Expect(err).NotTo(HaveOccurred())
			Expect(errors).To(BeNumerically(">=", errorsBefore+3), "the error is still returned, and counted")

			By("checking that status was written once, and one Warning event recorded, for the one failure")
			expectReportedOnce(ctx, f, statusWrites)
		})

		// Characterization: written after the setting it proves (the operator's client reads its
		// own writes), because only a cache that lags shows it reliably, and only the envtest tier
		// can make the operator's cache lag. Without that setting this spec fails in 20 of 20
		// runs, 3 to 5 status writes instead of 1, under two busy CPU loops; make mutate's break
		// "does not read its own writes" is that setting turned off.
		It("writes that status and its Warning event once even when its cache shows that write late: it reads its own writes", Label(tiers.NeedsInProcessOperator, "characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster, harness.WithClientConfig(cachelag.Of(cacheLag)))
			f.RefuseConfigMaps(ctx, "ConfigMaps are frozen in this namespace")
			before := f.EventuallySettled(ctx)
			statusWrites := before.ByResource["samples/status"]

			By("creating a Sample while the policy refuses its ConfigMap; the operator's cache shows every change 300 ms late")
			sample := f.CreateSample(ctx, "refused", "hello world")

			By("waiting for Ready=False, reason ConfigMapRefused, and for the retries that come before the cache shows that status")
			f.Eventually(ctx, komega.Object(sample)).Should(samples.HaveReady(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapRefused))
			f.Eventually(ctx, f.Operator.Read).Should(HaveField("Reconciles", BeNumerically(">=", before.Reconciles+3)))

			By("checking that status was written once, and one Warning event recorded")
			expectReportedOnce(ctx, f, statusWrites)
		})

		It("keeps a Ready Sample's ConfigMap as it was and reports its new generation refused; both Samples recover by themselves once the refusal is lifted", func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			ready := f.CreateSample(ctx, "ready", "hello world")
			f.EventuallySynced(ctx, ready)

			By("refusing ConfigMap writes, then creating a second Sample and changing the first one's message")
			lift := f.RefuseConfigMaps(ctx, "ConfigMaps are frozen in this namespace")
			refused := f.CreateSample(ctx, "refused", "hello world")
			Expect(komega.Update(ready, func() { ready.Spec.Message = "hello again" })()).To(Succeed())

			By("waiting for both to report Ready=False, reason ConfigMapRefused, each for its current generation")
			for _, s := range []*demov1alpha1.Sample{refused, ready} {
				f.Eventually(ctx, komega.Object(s)).Should(samples.HaveReady(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapRefused))
			}
			Expect(ready.Status.ObservedGeneration).To(BeNumerically("==", 2))

			By("checking that the first Sample's ConfigMap keeps the message it had: its update was refused")
			Expect(komega.Object(samples.ConfigMapOf(ready))()).
				To(HaveField("Data", HaveKeyWithValue(demov1alpha1.MessageKey, "hello world")))

			By("lifting the refusal: deleting the policy's binding, and nothing else")
			lift(ctx)
			lifted := time.Now()

			By("waiting for both Samples to be synced, the retry with backoff finding the way clear")
			// Recover, not Converge: the retries back off, up to the rate limiter's cap.
			for _, s := range []*demov1alpha1.Sample{refused, ready} {
				f.Eventually(ctx, func() error {
					_, err := samples.Check(ctx, f.Client, s)
					return err
				}).WithTimeout(samples.Recover).Should(Succeed())
			}
			AddReportEntry("recovered after the refusal was lifted", time.Since(lifted).Round(100*time.Millisecond).String())
		})
	})

	Context("when its RBAC does not let it patch ConfigMaps, the verb of every server-side apply", func() {
		// Characterization: written after the classification it proves, which came with the
		// reasons, when a break that took only a denied create for RBAC (a denied patch reported
		// ConfigMapRefused) failed no spec; with server-side apply every write is a patch, and a
		// denied patch is what RBAC refuses. Only the envtest tier can run the operator with RBAC
		// of its own.
		It("reports the refused write: Ready=False, reason ConfigMapForbidden, in the API server's words; and recovers by itself once RBAC allows the patch", Label(tiers.NeedsInProcessOperator, "characterization"), func(ctx SpecContext) {
			runAs, grant := samples.ForbidConfigMaps(ctx, suiteCluster.Client, "patch")
			f := samples.NewFixture(ctx, suiteCluster, runAs)

			By("creating a Sample, whose ConfigMap the operator applies with a patch")
			sample := f.CreateSample(ctx, "forbidden", "hello world")

			By("waiting for Ready=False, reason ConfigMapForbidden, quoting the API server: it cannot patch ConfigMaps")
			f.Eventually(ctx, komega.Object(sample)).Should(And(
				samples.HaveReady(metav1.ConditionFalse, demov1alpha1.ReasonConfigMapForbidden),
				HaveField("Status.Conditions", ContainElement(HaveField("Message", ContainSubstring(`cannot patch resource "configmaps"`)))),
			))

			By("checking that no ConfigMap was written")
			Expect(komega.Get(samples.ConfigMapOf(sample))()).To(Satisfy(apierrors.IsNotFound))

			By("granting the operator what config/rbac grants, patch included, and nothing else")
			grant(ctx)

			By("waiting for the Sample to be synced, the retry with backoff finding the way clear")
			f.Eventually(ctx, func() error {
				_, err := samples.Check(ctx, f.Client, sample)
				return err
			}).WithTimeout(samples.Recover).Should(Succeed())
		})
	})
})

// cacheLag is how late the operator's cache shows each change in the read-your-writes spec (its By
// text says 300 ms: the catalogue reads By texts as literals). It is longer
// than the first retries after a refused write take to come (5 ms, doubling: six within it).
const cacheLag = 300 * time.Millisecond

// expectReportedOnce watches, for the suite's at-rest time, that the operator has written the
// status of the one refused Sample once since it had written statusWrites, and recorded one
// Warning event for it, in the refusing policy's words.
func expectReportedOnce(ctx context.Context, f *samples.Fixture, statusWrites float64) {
	GinkgoHelper()
	Consistently(ctx, func(g Gomega) {
		g.Expect(f.Operator.Read()).To(HaveField("ByResource", HaveKeyWithValue("samples/status", statusWrites+1)))
		events := &eventsv1.EventList{}
		g.Expect(f.Client.List(ctx, events, client.InNamespace(f.Namespace))).To(Succeed())
		g.Expect(events.Items).To(ConsistOf(And(
			HaveField("Type", "Warning"),
			HaveField("Reason", demov1alpha1.ReasonConfigMapRefused),
			HaveField("Regarding.Name", "refused"),
			HaveField("Note", ContainSubstring("ConfigMaps are frozen in this namespace")),
		)))
	}).Should(Succeed())
}
