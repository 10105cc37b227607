package harness

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
)

// finalizing is a fake operator of ConfigMaps in namespaces of a fake API server: while it runs,
// it removes its finalizer, finalizer, from every ConfigMap being deleted, as an operator with a
// finalizer does; log records what it did and what was done to it, in order.
type finalizing struct {
	client    client.Client
	finalizer string
	mu        sync.Mutex
	log       []string
}

func (o *finalizing) record(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log = append(o.log, s)
}

func (o *finalizing) records() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.log)
}

// run is its Controls in namespace: Start runs its controller until Stop.
func (o *finalizing) run(namespace string) operator.Controls {
	reconciles := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total"}, []string{"controller", "result"})
	reconciles.WithLabelValues("configmap", "success").Add(0)
	registry := prometheus.NewRegistry()
	registry.MustRegister(reconciles)
	var stop context.CancelFunc
	var done chan struct{}
	return operator.Controls{
		Metrics: registry.Gather,
		Writes:  func() (map[string]float64, error) { return map[string]float64{}, nil },
		Start: func() error {
			var ctx context.Context
			ctx, stop = context.WithCancel(context.Background())
			done = make(chan struct{})
			go func() {
				defer close(done)
				for ctx.Err() == nil {
					o.finalize(ctx, namespace, reconciles)
				}
			}()
			return nil
		},
		Stop: func() error {
			stop()
			<-done
			o.record("operator stopped")
			return nil
		},
	}
}

// finalize removes o's finalizer from the ConfigMaps of namespace being deleted.
func (o *finalizing) finalize(ctx context.Context, namespace string, reconciles *prometheus.CounterVec) {
	list := &corev1.ConfigMapList{}
	if err := o.client.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return
	}
	for _, cm := range list.Items {
		if cm.DeletionTimestamp == nil || !slices.Contains(cm.Finalizers, o.finalizer) {
			continue
		}
		cm.Finalizers = slices.DeleteFunc(cm.Finalizers, func(f string) bool { return f == o.finalizer })
		if err := o.client.Update(ctx, &cm); err == nil {
			reconciles.WithLabelValues("configmap", "success").Inc()
			o.record("finalizer of " + cm.Name + " removed")
		}
	}
}

// fakeCluster is a fake API server, whose operator is o, reconciling ConfigMaps.
type fakeCluster struct {
	cluster.Cluster
	o *finalizing
}

func newFakeCluster(finalizer string) *fakeCluster {
	c := &deletes{Client: fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).Build()}
	o := &finalizing{finalizer: finalizer}
	c.log, o.client = o, c
	return &fakeCluster{o: o, Cluster: cluster.Cluster{Client: c, RunOperator: func(namespace string, _ operator.Changes) (*operator.Operator, func() error, error) {
		op := operator.New(operator.Subject{Kind: &corev1.ConfigMap{}}, o.run(namespace))
		return op, op.Down, op.Up()
	}}}
}

// deletes is a client that records in log each namespace it deletes.
type deletes struct {
	client.Client
	log *finalizing
}

func (d *deletes) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if _, ok := obj.(*corev1.Namespace); ok {
		d.log.record("namespace deleted")
	}
	return d.Client.Delete(ctx, obj, opts...)
}

// createHeld creates a ConfigMap called name in f's namespace, held by finalizer.
func createHeld(ctx context.Context, f *Fixture, name, finalizer string) {
	GinkgoHelper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace, Finalizers: []string{finalizer}}}
	Expect(f.Client.Create(ctx, cm)).To(Succeed())
}

const finalizer = "example.org/cleanup"

// TestCleanupDeletesTheSpecsObjectsWhileTheOperatorRuns: a spec's cleanup deletes the objects of
// the kind the operator reconciles while the operator runs (started again if the spec stopped
// it), so that it removes its finalizers, and only then stops it and deletes the namespace.
func TestCleanupDeletesTheSpecsObjectsWhileTheOperatorRuns(t *testing.T) {
	var running, stopped *fakeCluster
	var _ = Describe("a spec's cleanup", func() {
		It("deletes the spec's objects with the operator running", func(ctx SpecContext) {
			running = newFakeCluster(finalizer)
			createHeld(ctx, NewFixture(ctx, running.Cluster), "held", finalizer)
		})
		It("starts the operator again if the spec stopped it, to delete them", func(ctx SpecContext) {
			stopped = newFakeCluster(finalizer)
			f := NewFixture(ctx, stopped.Cluster)
			createHeld(ctx, f, "held", finalizer)
			Expect(f.Operator.Down()).To(Succeed())
		})
	})
	RegisterFailHandler(Fail)
	if !RunSpecs(t, "harness cleanup") {
		return
	}
	want := []string{"finalizer of held removed", "operator stopped", "namespace deleted"}
	if got := running.o.records(); !slices.Equal(got, want) {
		t.Errorf("the cleanup did %q, want %q", got, want)
	}
	if got := stopped.o.records(); !slices.Equal(got, append([]string{"operator stopped"}, want...)) {
		t.Errorf("the cleanup of a spec that stopped its operator did %q, want %q after the spec's stop", got, want)
	}
}

// TestCleanupNamesTheFinalizerThatHoldsAnObject: an object that a finalizer nobody removes holds
// fails the cleanup once the operator has settled, within seconds, naming the object and the
// finalizer.
func TestCleanupNamesTheFinalizerThatHoldsAnObject(t *testing.T) {
	RegisterTestingT(t)
	c := newFakeCluster(finalizer)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "spec-held"}}
	g := NewWithT(t)
	g.Expect(c.Client.Create(ctx, ns)).To(Succeed())
	op, _, err := c.RunOperator(ns.Name, operator.Changes{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = op.Down() })
	f := &Fixture{Namespace: ns.Name, Client: c.Client, Operator: op}
	createHeld(ctx, f, "finalized", finalizer)
	createHeld(ctx, f, "kept", "example.org/kept")
	message, took := failureOf(t, func() { f.emptyNamespace(ctx, c.CollectsGarbage) })
	if took > Settle+2*time.Second {
		t.Errorf("failed after %s, want about Settle (%s)", took, Settle)
	}
	for _, want := range []string{"ConfigMapList", "kept, held by the finalizers [example.org/kept]", "the operator settled without it"} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure does not say %q:\n%s", want, message)
		}
	}
	if strings.Contains(message, "finalized") {
		t.Errorf("the failure names the ConfigMap the operator finalized:\n%s", message)
	}
}
