package harness

import (
	"context"
	"errors"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/envtest/komega"

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
	var stop context.CancelFunc
	var done chan struct{}
	return operator.Controls{
		Metrics: gather(reconciles),
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
		Logs: func() string { return "the operator's last log line\n" },
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

// fakeCluster is a fake API server, whose operator is o, reconciling ConfigMaps; changes are
// the changes of the operator it ran last.
type fakeCluster struct {
	cluster.Cluster
	o       *finalizing
	changes operator.Changes
}

func newFakeCluster() *fakeCluster {
	c := &deletes{Client: fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).Build()}
	o := &finalizing{finalizer: finalizer}
	c.log, o.client = o, c
	fc := &fakeCluster{o: o}
	fc.Cluster = cluster.Cluster{Client: c, RunOperator: func(namespace string, changes operator.Changes) (*operator.Operator, func() error, error) {
		fc.changes = changes
		op := operator.New(operator.Subject{Kind: &corev1.ConfigMap{}}, o.run(namespace))
		return op, op.Down, op.Up()
	}}
	return fc
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

// refuses is a client that fails to create, or to delete, a namespace, or to list events, with
// the error given.
type refuses struct {
	client.Client
	create, delete, events error
}

func (r refuses) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*eventsv1.EventList); ok && r.events != nil {
		return r.events
	}
	return r.Client.List(ctx, list, opts...)
}

func (r refuses) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if _, ok := obj.(*corev1.Namespace); ok && r.create != nil {
		return r.create
	}
	return r.Client.Create(ctx, obj, opts...)
}

func (r refuses) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if _, ok := obj.(*corev1.Namespace); ok && r.delete != nil {
		return r.delete
	}
	return r.Client.Delete(ctx, obj, opts...)
}

// createHeld creates a ConfigMap called name in f's namespace, held by finalizer.
func createHeld(ctx context.Context, f *Fixture, name, finalizer string) {
	GinkgoHelper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace, Finalizers: []string{finalizer}}}
	Expect(f.Client.Create(ctx, cm)).To(Succeed())
}

const finalizer = "example.org/cleanup"

// recorder is a testing.T for a suite some of whose specs fail on purpose: the test reads the
// specs' reports instead.
type recorder struct{ failed bool }

func (r *recorder) Fail() { r.failed = true }

var threads = operator.NewSetting(1)

// TestFixtures: a spec's fixture is a namespace of its own, named for the spec and its process,
// and an operator the spec's changes changed. Its cleanup deletes the objects of the kind the
// operator reconciles while the operator runs (started again if the spec stopped it), so that it
// removes its finalizers, and only then stops it (the one that replaced it, if the spec replaced
// it) and deletes the namespace; for a spec that failed, and only then, it prints the
// namespace's events and the operator's logs, and its output holds what controller-runtime logged
// (RunScenarios set the suite up). The suite's cluster (ShareCluster) is the one its
// provider started, stopped once the specs have run.
func TestFixtures(t *testing.T) {
	var running, stopped, changed, replaced, failing *fakeCluster
	var reports []SpecReport
	shared, suiteCluster, sharedStopped := newFakeCluster(), cluster.Cluster{}, false
	shared.Stop = func() error {
		sharedStopped = true
		return nil
	}
	var _ = ShareCluster(&suiteCluster, operator.Subject{}, func(context.Context, operator.Subject) (*cluster.Cluster, []byte, error) {
		return &shared.Cluster, nil, nil
	})
	var _ = Describe("a spec's fixture", func() {
		ReportAfterEach(func(r SpecReport) { reports = append(reports, r) })
		It("is on the suite's cluster, which komega reads too", func(ctx SpecContext) {
			f := NewFixture(ctx, suiteCluster)
			createHeld(ctx, f, "held", finalizer)
			Expect(komega.Get(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "held"}})()).To(Succeed())
			ns := &corev1.Namespace{}
			Expect(f.Client.Get(ctx, client.ObjectKey{Name: f.Namespace}, ns)).To(Succeed())
			Expect(ns.Annotations).To(Equal(map[string]string{cluster.ProcessAnnotation: "1", cluster.SpecAnnotation: "a spec's fixture is on the suite's cluster, which komega reads too"}))
		})
		It("deletes the spec's objects with the operator running", func(ctx SpecContext) {
			running = newFakeCluster()
			f := NewFixture(ctx, running.Cluster)
			Expect(f.Namespace).To(HavePrefix("spec-"))
			Expect(f.Client.Get(ctx, client.ObjectKey{Name: f.Namespace}, &corev1.Namespace{})).To(Succeed())
			createHeld(ctx, f, "held", finalizer)
		})
		It("starts the operator again if the spec stopped it, to delete them", func(ctx SpecContext) {
			stopped = newFakeCluster()
			f := NewFixture(ctx, stopped.Cluster)
			createHeld(ctx, f, "held", finalizer)
			Expect(f.Operator.Down()).To(Succeed())
		})
		It("runs the operator as the spec's changes change it", func(ctx SpecContext) {
			changed = newFakeCluster()
			config := &rest.Config{Host: "changed"}
			NewFixture(ctx, changed.Cluster, WithControllers(func(ctrl.Manager, operator.Settings) error { return nil }),
				WithClientConfig(func(*rest.Config) *rest.Config { return config }), With(threads, 4))
			Expect(changed.changes.Setup).NotTo(BeNil())
			Expect(changed.changes.ClientConfig(nil)).To(BeIdenticalTo(config))
			Expect(threads.In(changed.changes.Settings)).To(Equal(4))
		})
		It("replaces its operator with another, which its cleanup runs and stops", func(ctx SpecContext) {
			replaced = newFakeCluster()
			f := NewFixture(ctx, replaced.Cluster)
			createHeld(ctx, f, "held", finalizer)
			f.Replace(With(threads, 2))
			Expect(threads.In(replaced.changes.Settings)).To(Equal(2))
		})
		It("replaces a shared operator with itself, running again at once", func(ctx SpecContext) {
			fc := newFakeCluster()
			var shared *operator.Operator
			c := fc.Cluster
			c.RunOperator = func(namespace string, _ operator.Changes) (*operator.Operator, func() error, error) {
				if shared == nil { // as the e2e tier's: started once, its release an Up
					shared = operator.New(operator.Subject{Kind: &corev1.ConfigMap{}}, fc.o.run(namespace))
					if err := shared.Up(); err != nil {
						return nil, nil, err
					}
				}
				return shared, shared.Up, nil
			}
			f := NewFixture(ctx, c)
			createHeld(ctx, f, "held", finalizer)
			f.Replace()
			held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: f.Namespace}}
			Expect(f.Client.Delete(ctx, held)).To(Succeed())
			Eventually(ctx, func() error { return f.Client.Get(ctx, client.ObjectKeyFromObject(held), held) }).
				WithTimeout(5*time.Second).Should(Satisfy(apierrors.IsNotFound), "the held ConfigMap, which only a running operator lets go")
		})
		It("fails, on purpose", func(ctx SpecContext) {
			failing = newFakeCluster()
			f := NewFixture(ctx, failing.Cluster)
			Expect(f.Client.Create(ctx, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "held"},
				Type: "Warning", Reason: "Held", Note: "the ConfigMap is held", Regarding: corev1.ObjectReference{Kind: "ConfigMap", Name: "held"}})).To(Succeed())
			ctrl.Log.Info("logged by controller-runtime")
			Fail("on purpose")
		})
		It("fails where its operator cannot run", func(ctx SpecContext) {
			NewFixture(ctx, cluster.Cluster{Client: newFakeCluster().Client, RunOperator: func(string, operator.Changes) (*operator.Operator, func() error, error) {
				return nil, nil, errors.New("no operator")
			}})
		})
		It("fails where its events cannot be listed", func(ctx SpecContext) {
			c := newFakeCluster().Cluster
			c.Client = refuses{Client: c.Client, events: errors.New("the events are refused")}
			NewFixture(ctx, c)
			Fail("on purpose")
		})
		It("fails where its namespace cannot be created", func(ctx SpecContext) {
			c := newFakeCluster().Cluster
			c.Client = refuses{Client: c.Client, create: errors.New("no namespace")}
			NewFixture(ctx, c)
		})
		It("fails where its namespace cannot be deleted", func(ctx SpecContext) {
			c := newFakeCluster().Cluster
			c.Client = refuses{Client: c.Client, delete: errors.New("the namespace stays")}
			NewFixture(ctx, c)
		})
		It("fails where its operator cannot start again for the cleanup", func(ctx SpecContext) {
			fc := newFakeCluster()
			c, starts := fc.Cluster, 0
			c.RunOperator = func(namespace string, _ operator.Changes) (*operator.Operator, func() error, error) {
				controls := fc.o.run(namespace)
				start := controls.Start
				controls.Start = func() error {
					if starts++; starts > 1 {
						return errors.New("no second start")
					}
					return start()
				}
				op := operator.New(operator.Subject{Kind: &corev1.ConfigMap{}}, controls)
				return op, op.Down, op.Up()
			}
			Expect(NewFixture(ctx, c).Operator.Down()).To(Succeed())
		})
	})
	RunScenarios(&recorder{}, "harness fixtures")
	for _, r := range reports {
		expectReported(t, r)
	}
	if len(reports) != 12 || !sharedStopped {
		t.Fatalf("%d specs ran, want 12; the suite's cluster stopped once they had: %t", len(reports), sharedStopped)
	}
	want := []string{"finalizer of held removed", "operator stopped", "namespace deleted"}
	if got := running.o.records(); !slices.Equal(got, want) {
		t.Errorf("the cleanup did %q, want %q", got, want)
	}
	if got := stopped.o.records(); !slices.Equal(got, append([]string{"operator stopped"}, want...)) {
		t.Errorf("the cleanup of a spec that stopped its operator did %q, want %q after the spec's stop", got, want)
	}
	if got := replaced.o.records(); !slices.Equal(got, append([]string{"operator stopped"}, want...)) {
		t.Errorf("the cleanup of a spec that replaced its operator did %q, want %q after the replaced one's stop", got, want)
	}
}

// expectReported checks the report of one of TestFixtures' specs: each fails as its name says,
// and a failed one prints its diagnostics.
func expectReported(t *testing.T, r SpecReport) {
	t.Helper()
	diagnostics := []string{"--- events in spec-", "Warning Held ConfigMap/held: the ConfigMap is held", "the operator's last log line", "logged by controller-runtime"}
	// The fixtures that cannot be made or cleaned up: each fails its spec with the error.
	cannot := map[string]string{
		"fails where its operator cannot run":                         "no operator",
		"fails where its namespace cannot be created":                 "no namespace",
		"fails where its namespace cannot be deleted":                 "the namespace stays",
		"fails where its operator cannot start again for the cleanup": "no second start",
		"fails where its events cannot be listed":                     "on purpose",
	}
	_, this, _, _ := runtime.Caller(0)
	if want, ok := cannot[r.LeafNodeText]; ok {
		if !r.Failed() || !strings.Contains(r.FailureMessage(), want) {
			t.Errorf("the spec %q failed: %t, with %q; want it failed with %q", r.LeafNodeText, r.Failed(), r.FailureMessage(), want)
		}
		if r.LeafNodeText == "fails where its operator cannot run" && r.FailureLocation().FileName != this {
			t.Errorf("a fixture whose operator cannot run failed at %s, want the error on the spec's line", r.FailureLocation())
		}
		if unlisted := regexp.MustCompile(`events of spec-\w+: the events are refused`).MatchString(r.CapturedGinkgoWriterOutput); unlisted != (r.LeafNodeText == "fails where its events cannot be listed") {
			t.Errorf("the spec %q says its events could not be listed: %t\n%s", r.LeafNodeText, unlisted, r.CapturedGinkgoWriterOutput)
		}
		return
	}
	if failed := r.LeafNodeText == "fails, on purpose"; failed != r.Failed() {
		t.Errorf("the spec %q failed: %t, want %t: %s", r.LeafNodeText, r.Failed(), failed, r.FailureMessage())
	} else if printed := strings.Contains(r.CapturedGinkgoWriterOutput, diagnostics[0]); printed != failed {
		t.Errorf("the spec %q, failed: %t, printed the diagnostics: %t\n%s", r.LeafNodeText, failed, printed, r.CapturedGinkgoWriterOutput)
	} else if failed && strings.Contains(r.CapturedGinkgoWriterOutput, "events of ") {
		t.Errorf("the failed spec's diagnostics say its events could not be listed:\n%s", r.CapturedGinkgoWriterOutput)
	} else if failed {
		for _, want := range diagnostics {
			if !strings.Contains(r.CapturedGinkgoWriterOutput, want) {
				t.Errorf("the failed spec's diagnostics do not say %q:\n%s", want, r.CapturedGinkgoWriterOutput)
			}
		}
	}
}

// TestCleanupNamesTheFinalizerThatHoldsAnObject: an object that a finalizer nobody removes holds
// fails the cleanup once the operator has settled, within seconds, naming the object and the
// finalizer.
func TestCleanupNamesTheFinalizerThatHoldsAnObject(t *testing.T) {
	RegisterTestingT(t)
	c := newFakeCluster()
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
	message, took, where := failureOf(t, func() { f.emptyNamespace(ctx, c.CollectsGarbage) })
	expectHere(t, where)
	expectSettled(t, message, took)
	for _, want := range []string{"objects left of ConfigMapList in spec-held once the cleanup deleted them", "kept, held by the finalizers [example.org/kept]"} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure does not say %q:\n%s", want, message)
		}
	}
	if strings.Contains(message, "finalized") {
		t.Errorf("the failure names the ConfigMap the operator finalized:\n%s", message)
	}
}

// asServed is a client whose lists of metadata hold items typed as the API server types them:
// PartialObjectMetadata, not their kind.
type asServed struct{ client.Client }

func (c asServed) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	err := c.Client.List(ctx, list, opts...)
	if metadata, ok := list.(*metav1.PartialObjectMetadataList); ok {
		for i := range metadata.Items {
			metadata.Items[i].TypeMeta = metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}
		}
	}
	return err
}

// TestCleanupNamesTheFinalizerThatHoldsAnObjectOfAKindItCreates: where no garbage collector
// runs, the cleanup deletes what the spec's objects owned, of every kind the Subject creates,
// with the operator running; an object of any of those kinds that a finalizer nobody removes
// holds fails it once the operator has settled, named with its kind and the finalizer, as does
// one being deleted that no object of the spec owned. Objects of those kinds that nothing of the
// spec owns, and that nobody deletes, are left alone.
func TestCleanupNamesTheFinalizerThatHoldsAnObjectOfAKindItCreates(t *testing.T) {
	RegisterTestingT(t)
	fc := newFakeCluster()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "spec-created"}}
	Expect(fc.Client.Create(ctx, ns)).To(Succeed())
	op := operator.New(operator.Subject{Kind: &corev1.ConfigMap{}, Owned: []client.Object{&corev1.Secret{}, &corev1.ServiceAccount{}}}, fc.o.run(ns.Name))
	Expect(op.Up()).To(Succeed())
	t.Cleanup(func() { _ = op.Down() })
	meta := func(name string, owned bool, finalizers ...string) metav1.ObjectMeta {
		m := metav1.ObjectMeta{Name: name, Namespace: ns.Name, Finalizers: finalizers}
		if owned {
			m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "uid-of-owner"}}
		}
		return m
	}
	released := &corev1.Secret{ObjectMeta: meta("released", true)}
	unowned := &corev1.Secret{ObjectMeta: meta("unowned", false, "example.org/kept")}
	deleting := &corev1.Secret{ObjectMeta: meta("deleting", false, "example.org/kept")}
	for _, obj := range []client.Object{released, unowned, deleting,
		&corev1.ServiceAccount{ObjectMeta: meta("held", true, "example.org/kept")}} {
		Expect(fc.Client.Create(ctx, obj)).To(Succeed())
	}
	Expect(fc.Client.Delete(ctx, deleting)).To(Succeed())
	f := &Fixture{Namespace: ns.Name, Client: asServed{fc.Client}, Operator: op}
	message, took, where := failureOf(t, func() { f.emptyNamespace(ctx, false) })
	expectHere(t, where)
	expectSettled(t, message, took)
	for _, want := range []string{"objects left of SecretList, ServiceAccountList in spec-created once the cleanup deleted them",
		"Secret deleting, held by the finalizers [example.org/kept]", "ServiceAccount held, held by the finalizers [example.org/kept]"} {
		if !strings.Contains(message, want) {
			t.Errorf("the failure does not say %q:\n%s", want, message)
		}
	}
	if strings.Contains(message, "released") || strings.Contains(message, "unowned") {
		t.Errorf("the failure names a Secret that is gone, or that nothing of the spec owned:\n%s", message)
	}
	Expect(fc.Client.Get(ctx, client.ObjectKeyFromObject(released), released)).To(MatchError(ContainSubstring("not found")))
	Expect(fc.Client.Get(ctx, client.ObjectKeyFromObject(unowned), unowned)).To(Succeed())
}

// upOwningSecrets starts o as an operator of the ConfigMaps of namespace that own Secrets, stopped
// when t ends, and gives it with a Secret "owned" of namespace, not yet created, that an object of
// the kind owner owns.
func upOwningSecrets(t *testing.T, o *finalizing, namespace, owner string) (*operator.Operator, *corev1.Secret) {
	t.Helper()
	op := operator.New(operator.Subject{Kind: &corev1.ConfigMap{}, Owned: []client.Object{&corev1.Secret{}}}, o.run(namespace))
	NewWithT(t).Expect(op.Up()).To(Succeed())
	t.Cleanup(func() { _ = op.Down() })
	return op, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "owned", Namespace: namespace, OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: owner, Name: "owner", UID: "uid-of-owner"}}}}
}

// TestCleanupWaitsForWhatTheObjectsOwnedWhereAGarbageCollectorRuns: where a garbage collector
// runs, the cleanup also waits for it to delete what the spec's objects owned (the kinds the
// Subject owns), leaving that to it, and fails naming the kind still left; objects of those kinds
// that others own it leaves alone; on a cluster with no garbage collector, it deletes what they
// owned itself.
func TestCleanupWaitsForWhatTheObjectsOwnedWhereAGarbageCollectorRuns(t *testing.T) {
	for _, c := range []struct {
		name            string
		owner           string
		collectsGarbage bool
		left            bool
	}{
		{"an object the reconciled kind owns, left where a garbage collector runs", "ConfigMap", true, true},
		{"an object another kind owns", "Deployment", true, false},
		{"an object the reconciled kind owns, on a cluster with no garbage collector", "ConfigMap", false, false},
	} {
		// Where a garbage collector runs the cleanup deletes no Secret: the fake cluster runs none.
		kept := c.collectsGarbage
		t.Run(c.name, func(t *testing.T) {
			RegisterTestingT(t)
			fc := newFakeCluster()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "spec-owned"}}
			Expect(fc.Client.Create(ctx, ns)).To(Succeed())
			op, owned := upOwningSecrets(t, fc.o, ns.Name, c.owner)
			Expect(fc.Client.Create(ctx, owned)).To(Succeed())
			f := &Fixture{Namespace: ns.Name, Client: fc.Client, Operator: op}
			if !c.left {
				f.emptyNamespace(ctx, c.collectsGarbage)
			} else if message, _, _ := failureOf(t, func() { f.emptyNamespace(ctx, c.collectsGarbage) }); !strings.Contains(message, "objects left of SecretList") {
				t.Errorf("the cleanup's failure does not name the kind left:\n%s", message)
			}
			if err := fc.Client.Get(ctx, client.ObjectKeyFromObject(owned), owned); (err == nil) != kept {
				t.Errorf("the Secret once the cleanup has run: %v; want it kept: %t", err, kept)
			}
		})
	}
}

// TestCleanupWaitsForAGarbageCollectorSlowerThanTheOperator: where a garbage collector runs, the
// cleanup waits for it as for anyone else, up to Collect, not only while the operator works: a
// garbage collector that deletes what the spec's objects owned after the operator has settled
// (here, the first list after 2 × Settle) leaves a cleanup that passes.
func TestCleanupWaitsForAGarbageCollectorSlowerThanTheOperator(t *testing.T) {
	RegisterTestingT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*Settle)
	defer cancel()
	op, owned := upOwningSecrets(t, newFakeCluster().o, "spec-collected", "ConfigMap")
	started := time.Now()
	collecting := interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
		if list.GetObjectKind().GroupVersionKind().Kind == "SecretList" && time.Since(started) > 2*Settle {
			Expect(client.IgnoreNotFound(c.Delete(ctx, owned.DeepCopy()))).To(Succeed())
		}
		return c.List(ctx, list, opts...)
	}}
	c := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(owned).WithInterceptorFuncs(collecting).Build()
	f := &Fixture{Namespace: "spec-collected", Client: c, Operator: op}
	f.emptyNamespace(ctx, true)
	if took := time.Since(started); took < 2*Settle {
		t.Errorf("the cleanup passed after %s, before the garbage collector deleted the Secret (2 × Settle)", took)
	}
	Expect(c.Get(ctx, client.ObjectKeyFromObject(owned), owned)).To(MatchError(ContainSubstring("not found")))
}

// TestCleanupFailsWithWhatItCouldNotDo: a cleanup that cannot delete the spec's objects, or list
// them or what they owned, or delete that, fails with the API server's error.
func TestCleanupFailsWithWhatItCouldNotDo(t *testing.T) {
	refused := errors.New("refused by the API server")
	refuseList := func(kind string) interceptor.Funcs {
		return interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if list.GetObjectKind().GroupVersionKind().Kind == kind {
				return refused
			}
			return c.List(ctx, list, opts...)
		}}
	}
	for _, c := range []struct {
		name            string
		refuse          interceptor.Funcs
		collectsGarbage bool
	}{
		{"delete the spec's objects", interceptor.Funcs{DeleteAllOf: func(context.Context, client.WithWatch, client.Object, ...client.DeleteAllOfOption) error {
			return refused
		}}, false},
		{"list the spec's objects", refuseList("ConfigMapList"), false},
		{"list what they owned", refuseList("SecretList"), true},
		{"list what they owned, to delete it", refuseList("SecretList"), false},
		{"delete what they owned", interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if obj.GetObjectKind().GroupVersionKind().Kind == "Secret" {
				return refused
			}
			return c.Delete(ctx, obj, opts...)
		}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			RegisterTestingT(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			op, owned := upOwningSecrets(t, newFakeCluster().o, "spec-refused", "ConfigMap")
			refusing := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(owned).WithInterceptorFuncs(c.refuse).Build()
			f := &Fixture{Namespace: "spec-refused", Client: refusing, Operator: op}
			if message, _, _ := failureOf(t, func() { f.emptyNamespace(ctx, c.collectsGarbage) }); !strings.Contains(message, refused.Error()) {
				t.Errorf("the cleanup's failure does not say %q:\n%s", refused, message)
			}
		})
	}
}

// unregistered is a kind that no scheme of the tests knows.
type unregistered struct{ corev1.ConfigMap }

// TestAKindTheSchemeLacksFailsWhereTheSpecIs: the harness's list of a kind it cannot name fails
// saying so, at the caller's line.
func TestAKindTheSchemeLacksFailsWhereTheSpecIs(t *testing.T) {
	RegisterTestingT(t)
	f := &Fixture{Client: fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).Build()}
	message, _, where := failureOf(t, func() { f.listOf(&unregistered{}) })
	expectHere(t, where)
	if !strings.Contains(message, "no kind is registered") {
		t.Errorf("the failure does not say the kind is not registered:\n%s", message)
	}
}
