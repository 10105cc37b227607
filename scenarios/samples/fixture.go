package samples

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/harness/cluster"
)

// Fixture is the harness's Fixture with what a scenario does to Samples and waits for.
type Fixture struct {
	*harness.Fixture
}

// NewFixture is harness.NewFixture for a scenario of Samples.
func NewFixture(ctx context.Context, c cluster.Cluster, opts ...harness.Change) *Fixture {
	GinkgoHelper()
	return &Fixture{harness.NewFixture(ctx, c, opts...)}
}

// CreateSample creates a v1alpha1 Sample called name with message in the fixture's namespace.
// Stored as v1beta1, it converts through the operator's webhook, which on a cluster serves once
// the operator's Pod is Ready: the create is Gomega's wait, up to ConversionReady, the API
// server's and the webhook's work, not the reconciler's. Where the operator is down, or has just
// restarted, create a v1beta1 Sample (CreateSampleData): it needs no conversion.
func (f *Fixture) CreateSample(ctx context.Context, name, message string) *demov1alpha1.Sample {
	GinkgoHelper()
	sample := New(f.Namespace, name, message)
	Eventually(ctx, func(g Gomega) {
		g.Expect(client.IgnoreAlreadyExists(f.Client.Create(ctx, sample))).To(Succeed())
	}).WithTimeout(ConversionReady).Should(Succeed())
	return sample
}

// ConversionReady bounds how long a conversion waits for the operator's webhook: on a cluster, an
// operator a spec before restarted serves it once its Pod is Ready and in its Service's endpoints,
// its readiness probe's delay and period after its start (the kind tier saw more than 10 s).
const ConversionReady = time.Minute

// CRDName is the name of the Samples' CustomResourceDefinition.
const CRDName = "samples.demo.example.com"

// CreateSampleData creates a v1beta1 Sample, the version stored, called name with spec.data data
// in the fixture's namespace.
func (f *Fixture) CreateSampleData(ctx context.Context, name string, data map[string]string) *demov1beta1.Sample {
	GinkgoHelper()
	sample := NewData(f.Namespace, name, data)
	Expect(f.Client.Create(ctx, sample)).To(Succeed())
	return sample
}

// PatchSample sends sample a JSON merge patch, as `kubectl patch sample --type merge` does, and
// reads the result into it: metadata, spec, anything but status.
//
//	f.PatchSample(ctx, sample, `{"metadata":{"annotations":{"demo.example.com/paused":"true"}}}`)
func (f *Fixture) PatchSample(ctx context.Context, sample *demov1alpha1.Sample, patch string) {
	GinkgoHelper()
	Expect(MergePatch(ctx, f.Client, sample, sample.Namespace, sample.Name, patch)).To(Succeed())
}

// EventuallySynced waits until the ConfigMap holds what sample, of either version, asks for and
// the Sample reports Ready=True for its current generation (Synced). It refreshes sample and
// returns the ConfigMap as read.
func (f *Fixture) EventuallySynced(ctx context.Context, sample client.Object) *corev1.ConfigMap {
	GinkgoHelper()
	var cm *corev1.ConfigMap
	f.Eventually(ctx, func() error {
		var err error
		cm, err = Check(ctx, f.Client, sample)
		return err
	}).Should(Succeed())
	return cm
}

// Many bounds a wait for many Samples to converge at once: the concurrency scenario's 100, the
// killed-mid-run scenario's 300. Those scenarios prove that every Sample converges, not how fast.
// A wrong result fails the wait within harness.Settle of the operator falling quiet, and a loop
// fails it as soon as it shows (Fixture.Eventually); this bound only stops a wait on an operator
// still working, however loaded the machine (a 2-core runner at a load of 12 took more than
// harness.Converge for 100). How long they take unloaded is measured apart: BENCHMARKS.md, "The
// tiers, timed".
const Many = 2 * time.Minute

// EventuallyEverySample waits, up to Many, until the namespace holds n Samples, each reporting
// Ready=status with reason for its current generation.
func (f *Fixture) EventuallyEverySample(ctx context.Context, n int, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	f.Eventually(ctx, func(g Gomega) {
		list := &demov1beta1.SampleList{} // the version stored: no conversion, however many
		g.Expect(f.Client.List(ctx, list, client.InNamespace(f.Namespace))).To(Succeed())
		g.Expect(list.Items).To(HaveLen(n))
		g.Expect(list.Items).To(HaveEach(HaveReady(status, reason)))
	}).WithTimeout(Many).Should(Succeed())
}
