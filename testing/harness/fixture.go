package harness

import (
	"context"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/controllers"
	"example.com/operator-demo/testing/cluster"
	"example.com/operator-demo/testing/operator"
	"example.com/operator-demo/testing/samples"
	"example.com/operator-demo/testing/tiers"
)

// Fixture is one spec's world: a namespace of its own, and an operator reconciling it.
type Fixture struct {
	Namespace string
	Client    client.Client
	Operator  *operator.Operator
}

// FixtureOption changes the operator NewFixture runs.
type FixtureOption func(*operator.Setup)

// WithControllers runs an operator whose controllers setup registers, instead of the operator's
// own: a stage of a walkthrough, say. Only the envtest tier can run it (the e2e tier's operator is
// the production binary).
func WithControllers(setup operator.Setup) FixtureOption {
	return func(s *operator.Setup) { *s = setup }
}

// NewFixture creates a namespace (GenerateName) and an operator for it. Both are removed when the
// spec ends: the operator stopped first, then the namespace deleted.
func NewFixture(ctx context.Context, c cluster.Cluster, opts ...FixtureOption) *Fixture {
	GinkgoHelper()
	var setup operator.Setup
	for _, o := range opts {
		o(&setup)
	}
	f := &Fixture{Client: c.Client()}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sample-"}}
	Expect(f.Client.Create(ctx, ns)).To(Succeed())
	f.Namespace = ns.Name
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(f.Client.Delete(ctx, ns))).To(Succeed())
	})
	DeferCleanup(f.deleteSamples)
	var err error
	f.Operator, err = c.RunOperator(ns.Name, setup)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(f.Operator.Release)
	// Runs first of the cleanups: the namespace and the operator are still as the failure left them.
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			f.printDiagnostics(ctx)
		}
	})
	return f
}

// deleteSamples deletes the spec's Samples before its namespace and waits for them and, where a
// garbage collector runs, for their ConfigMaps: a shared operator then has nothing of this spec's
// left to reconcile while the next spec measures it.
func (f *Fixture) deleteSamples(ctx SpecContext) {
	collected := tiers.Current().Runs(tiers.NeedsGarbageCollector)
	Expect(f.Client.DeleteAllOf(ctx, &demov1alpha1.Sample{}, client.InNamespace(f.Namespace))).To(Succeed())
	// Failover: the garbage collector of a cluster busy with the previous spec may take longer
	// than an operator's Converge.
	Eventually(ctx, func(g Gomega) {
		left := &demov1alpha1.SampleList{}
		g.Expect(f.Client.List(ctx, left, client.InNamespace(f.Namespace))).To(Succeed())
		g.Expect(left.Items).To(BeEmpty())
		if collected {
			cms := &corev1.ConfigMapList{}
			g.Expect(f.Client.List(ctx, cms, client.InNamespace(f.Namespace), client.MatchingLabels{controllers.ManagedByLabel: controllers.ManagedByValue})).To(Succeed())
			g.Expect(cms.Items).To(BeEmpty())
		}
	}).WithTimeout(Failover).Should(Succeed())
}

// CreateSample creates a Sample called name with message in the fixture's namespace.
func (f *Fixture) CreateSample(ctx context.Context, name, message string) *demov1alpha1.Sample {
	GinkgoHelper()
	sample := samples.New(f.Namespace, name, message)
	Expect(f.Client.Create(ctx, sample)).To(Succeed())
	return sample
}

// printDiagnostics writes what a failed spec leaves to look at: the namespace's events and the
// end of every log the operator and the cluster keep.
func (f *Fixture) printDiagnostics(ctx context.Context) {
	events := &eventsv1.EventList{}
	if err := f.Client.List(ctx, events, client.InNamespace(f.Namespace)); err != nil {
		GinkgoWriter.Printf("events of %s: %v\n", f.Namespace, err)
	}
	GinkgoWriter.Printf("\n--- events in %s\n", f.Namespace)
	for _, e := range events.Items {
		GinkgoWriter.Printf("%s %s %s/%s: %s\n", e.Type, e.Reason, e.Regarding.Kind, e.Regarding.Name, e.Note)
	}
	for _, path := range f.Operator.Logs() {
		GinkgoWriter.Printf("\n--- last lines of %s\n%s\n", path, tail(path, 40))
	}
}

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// PatchSample sends sample a JSON merge patch, as `kubectl patch sample --type merge` does, and
// reads the result into it: metadata, spec, anything but status.
//
//	f.PatchSample(ctx, sample, `{"metadata":{"annotations":{"demo.example.com/paused":"true"}}}`)
func (f *Fixture) PatchSample(ctx context.Context, sample *demov1alpha1.Sample, patch string) {
	GinkgoHelper()
	Expect(samples.MergePatch(ctx, f.Client, sample, sample.Namespace, sample.Name, patch)).To(Succeed())
}
