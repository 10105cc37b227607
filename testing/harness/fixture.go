package harness

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/controllers"
)

// How long the scenarios wait. Every Eventually and Consistently names one of these.
const (
	// Converge bounds how long the operator may take to act on a change.
	Converge = 10 * time.Second
	// Failover bounds how long a new operator may take to become leader after the old one was
	// killed: the old one's lease must expire first (LeaseDuration 15 s, RetryPeriod 2 s).
	Failover = 30 * time.Second
	// Standby is how long a test watches a standby replica not take the lease: two of leader
	// election's 2 s retry periods and a margin, so that it sees the standby try at least once.
	Standby = 5 * time.Second
	// AtRest is how long a scenario watches for something that must not happen. What it catches
	// (a reconcile loop, a write on a no-op pass, a revert the operator should not make) shows
	// within a few hundred milliseconds: a status loop runs ~30 reconciles a second here, and
	// every scenario watches only after the reconcile under test has been seen to happen.
	AtRest = 1 * time.Second
	// Poll is how often Eventually and Consistently look.
	Poll = 100 * time.Millisecond
)

// Fixture is one spec's world: a namespace of its own, and an operator reconciling it.
type Fixture struct {
	Namespace string
	Client    client.Client
	Operator  *Operator
}

// FixtureOption changes how NewFixture wires the operator.
type FixtureOption func(*controllers.Wiring)

// WithoutConfigMapWatch wires the operator as the seed article's first stage: it reconciles a
// Sample when the Sample's spec changes, and not when its ConfigMap does. Only the envtest tier
// can run it (the e2e tier's operator is the production binary).
func WithoutConfigMapWatch() FixtureOption {
	return func(w *controllers.Wiring) { *w = controllers.WatchSamplesOnly }
}

// NewFixture creates a namespace (GenerateName) and an operator for it. Both are removed when the
// spec ends: the operator stopped first, then the namespace deleted.
func NewFixture(ctx context.Context, cluster Cluster, opts ...FixtureOption) *Fixture {
	GinkgoHelper()
	wiring := controllers.WatchSamplesAndConfigMaps
	for _, o := range opts {
		o(&wiring)
	}
	c := cluster.Client()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sample-"}}
	Expect(c.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(c.Delete(ctx, ns))).To(Succeed())
	})
	// Samples go before their namespace, and the spec waits for them and, where a garbage
	// collector runs, for their ConfigMaps: a shared operator then has nothing of this spec's left
	// to reconcile while the next spec measures it.
	collected := !slices.Contains(CurrentTier().Excludes, NeedsGarbageCollector)
	DeferCleanup(func(ctx SpecContext) {
		Expect(c.DeleteAllOf(ctx, &demov1alpha1.Sample{}, client.InNamespace(ns.Name))).To(Succeed())
		Eventually(func(g Gomega) {
			samples := &demov1alpha1.SampleList{}
			g.Expect(c.List(ctx, samples, client.InNamespace(ns.Name))).To(Succeed())
			g.Expect(samples.Items).To(BeEmpty())
			if collected {
				cms := &corev1.ConfigMapList{}
				g.Expect(c.List(ctx, cms, client.InNamespace(ns.Name), client.MatchingLabels{controllers.ManagedByLabel: controllers.ManagedByValue})).To(Succeed())
				g.Expect(cms.Items).To(BeEmpty())
			}
		}).WithContext(ctx).WithTimeout(Failover).WithPolling(Poll).Should(Succeed())
	})
	op, err := cluster.RunOperator(ns.Name, wiring)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(op.release)
	// Runs first of the cleanups: the namespace and the operator are still as the failure left them.
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			printDiagnostics(ctx, c, ns.Name, op)
		}
	})
	return &Fixture{Namespace: ns.Name, Client: c, Operator: op}
}

// CreateSample creates a Sample called name with message in the fixture's namespace.
func (f *Fixture) CreateSample(ctx context.Context, name, message string) *demov1alpha1.Sample {
	GinkgoHelper()
	sample := &demov1alpha1.Sample{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace},
		Spec:       demov1alpha1.SampleSpec{Message: message},
	}
	Expect(f.Client.Create(ctx, sample)).To(Succeed())
	return sample
}

// ConfigMapOf is the (empty) ConfigMap object that sample keeps its message in, for komega to fill.
func ConfigMapOf(sample *demov1alpha1.Sample) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name:      demov1alpha1.ConfigMapName(sample.Name),
		Namespace: sample.Namespace,
	}}
}

// EventuallySynced waits until the ConfigMap holds sample's message and the Sample reports
// Ready=True for its current generation. It refreshes sample and returns the ConfigMap as read.
func (f *Fixture) EventuallySynced(ctx context.Context, sample *demov1alpha1.Sample) *corev1.ConfigMap {
	GinkgoHelper()
	cm := ConfigMapOf(sample)
	Eventually(func(g Gomega) {
		g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(sample), sample)).To(Succeed())
		g.Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm)).To(Succeed())
		g.Expect(cm.Data).To(HaveKeyWithValue(demov1alpha1.MessageKey, sample.Spec.Message))
		g.Expect(sample.Status.ObservedGeneration).To(Equal(sample.Generation))
		g.Expect(sample.Status.Conditions).To(ContainElement(And(
			HaveField("Type", demov1alpha1.ConditionReady),
			HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", demov1alpha1.ReasonSynced),
		)))
	}).WithContext(ctx).WithTimeout(Converge).WithPolling(Poll).Should(Succeed())
	return cm
}

// EventuallySettled waits until the operator's counts stop moving (the same across AtRest/3) and
// returns them: the baseline a spec counts from. On e2e one operator serves every spec, and its
// reconciles of the previous spec's deleted objects may still be arriving.
func (f *Fixture) EventuallySettled(ctx context.Context) Counts {
	GinkgoHelper()
	var settled Counts
	Eventually(func(g Gomega) {
		previous := settled
		var err error
		settled, err = f.Operator.Counts()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(settled).To(Equal(previous))
	}).WithContext(ctx).WithTimeout(Converge).WithPolling(AtRest / 3).Should(Succeed())
	return settled
}

// printDiagnostics writes what a failed spec leaves to look at: the namespace's events and the
// end of every log the operator and the cluster keep.
func printDiagnostics(ctx context.Context, c client.Client, namespace string, op *Operator) {
	events := &eventsv1.EventList{}
	if err := c.List(ctx, events, client.InNamespace(namespace)); err != nil {
		GinkgoWriter.Printf("events of %s: %v\n", namespace, err)
	}
	GinkgoWriter.Printf("\n--- events in %s\n", namespace)
	for _, e := range events.Items {
		GinkgoWriter.Printf("%s %s %s/%s: %s\n", e.Type, e.Reason, e.Regarding.Kind, e.Regarding.Name, e.Note)
	}
	for _, path := range op.Logs() {
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

// MergePatch sends a JSON merge patch to the object namespace/name of obj's kind, as
// `kubectl patch --type merge` does.
func MergePatch(ctx context.Context, c client.Client, obj client.Object, namespace, name, patch string) error {
	obj.SetNamespace(namespace)
	obj.SetName(name)
	return c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch)))
}
