package harness

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
)

// Fixture is one spec's world: a namespace of its own, and an operator reconciling it.
type Fixture struct {
	Namespace string
	Client    client.Client
	Operator  *operator.Operator
	// run runs an operator for the namespace; release is what the spec's cleanup does to the
	// one running now (cluster.Cluster's RunOperator).
	run     func(changes operator.Changes) (*operator.Operator, func() error, error)
	release func() error
}

// Change changes the operator NewFixture runs (operator.Changes): only one in the test process.
type Change func(*operator.Changes)

// WithControllers runs an operator whose controllers setup registers, instead of the operator's
// own: a stage of a walkthrough, say.
func WithControllers(setup operator.Setup) Change {
	return func(c *operator.Changes) { c.Setup = setup }
}

// WithClientConfig runs the operator with its client configuration changed by change: a cache
// that lags behind the API server, say (package cachelag).
func WithClientConfig(change func(*rest.Config) *rest.Config) Change {
	return func(c *operator.Changes) { c.ClientConfig = change }
}

// With runs the operator with setting set to value (a frozen clock, say): its own setup, reading
// the setting as the suite's Subject declares it.
func With[T any](setting *operator.Setting[T], value T) Change {
	return func(c *operator.Changes) { c.Settings[setting] = value }
}

// NewFixture creates a namespace (GenerateName), annotated with the spec's full text and its
// Ginkgo process (cluster.SpecAnnotation), and an operator for it. Both are removed when the
// spec ends: the spec's objects deleted first, with the operator running so that it honours its
// finalizers (emptyNamespace), then the operator stopped (a shared one left running), then the
// namespace deleted.
func NewFixture(ctx context.Context, c cluster.Cluster, changes ...Change) *Fixture {
	GinkgoHelper()
	f := &Fixture{Client: c.Client}
	// Named for the webhooks' log lines, which the first process serves for every spec.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "spec-", Annotations: map[string]string{
		cluster.ProcessAnnotation: strconv.Itoa(GinkgoParallelProcess()),
		cluster.SpecAnnotation:    CurrentSpecReport().FullText(),
	}}}
	Expect(f.Client.Create(ctx, ns)).To(Succeed())
	f.Namespace = ns.Name
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(f.Client.Delete(ctx, ns))).To(Succeed())
	})
	f.run = func(changes operator.Changes) (*operator.Operator, func() error, error) {
		return c.RunOperator(ns.Name, changes)
	}
	f.runOperator(changes)
	DeferCleanup(func() error { return f.release() })
	DeferCleanup(f.emptyNamespace, c.CollectsGarbage)
	// The first cleanup: all is still as the failure left it.
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			f.printDiagnostics(ctx)
		}
	})
	return f
}

// Replace stops the spec's operator and runs another in its place, as changes change the Subject
// (none: the Subject itself), as an upgrade replaces a release with the next; the spec's cleanup
// then deletes the spec's objects with the new one running, and releases it. Changes other than
// none need an operator in the test process (tiers.NeedsInProcessOperator), as NewFixture's do;
// where the operator is the cluster's, shared by every spec, it is the same one, started again.
func (f *Fixture) Replace(changes ...Change) {
	GinkgoHelper()
	Expect(f.Operator.Down()).To(Succeed(), "stop the operator that is replaced")
	f.runOperator(changes)
	Expect(f.Operator.Up()).To(Succeed(), "start the operator that replaces it")
}

// runOperator runs the operator for the spec's namespace as changes change it.
func (f *Fixture) runOperator(changes []Change) {
	GinkgoHelper()
	changed := operator.Changes{Settings: operator.Settings{}}
	for _, change := range changes {
		change(&changed)
	}
	op, release, err := f.run(changed)
	Expect(err).NotTo(HaveOccurred())
	f.Operator, f.release = op, release
}

// emptyNamespace deletes the spec's objects of the kind the operator reconciles and waits for them
// to go; then what they owned, of every kind the operator creates (the Subject's Owned): where a
// garbage collector runs it deletes them, elsewhere the cleanup does. An object still held once
// the operator has settled fails the spec, named with its kind and finalizers: a shared operator
// is left nothing of this spec's to reconcile.
func (f *Fixture) emptyNamespace(ctx context.Context, collectsGarbage bool) {
	GinkgoHelper()
	subject := f.Operator.Subject()
	Expect(f.Operator.Up()).To(Succeed())
	Expect(f.Client.DeleteAllOf(ctx, subject.Kind, client.InNamespace(f.Namespace))).To(Succeed())
	kind := f.listOf(subject.Kind)
	f.Eventually(ctx, func(g Gomega) []string {
		g.Expect(f.Client.List(ctx, kind, client.InNamespace(f.Namespace))).To(Succeed())
		return held(kind.Items)
	}).WithTimeout(Collect).Should(BeEmpty(), "objects left of %s in %s once the cleanup deleted them", kind.Kind, f.Namespace)
	owner := strings.TrimSuffix(kind.Kind, "List")
	lists, kinds := make([]*metav1.PartialObjectMetadataList, len(subject.Owned)), make([]string, len(subject.Owned))
	for i, owned := range subject.Owned {
		lists[i] = f.listOf(owned)
		kinds[i] = lists[i].Kind
	}
	// left names the objects of those kinds that the spec's objects owned, or that are being
	// deleted: "Secret web, held by the finalizers [example.org/kept]". Where no garbage collector
	// runs, it deletes what they owned first, as one would.
	left := func(g Gomega) []string {
		out := make([]string, 0, len(lists))
		for _, list := range lists {
			g.Expect(f.Client.List(ctx, list, client.InNamespace(f.Namespace))).To(Succeed())
			for _, obj := range list.Items {
				if !collectsGarbage && obj.DeletionTimestamp == nil && ownedBy(obj, owner) {
					obj.SetGroupVersionKind(list.GroupVersionKind().GroupVersion().WithKind(strings.TrimSuffix(list.Kind, "List")))
					g.Expect(client.IgnoreNotFound(f.Client.Delete(ctx, &obj))).To(Succeed())
				}
			}
			for _, name := range held(slices.DeleteFunc(list.Items, func(obj metav1.PartialObjectMetadata) bool {
				return obj.DeletionTimestamp == nil && !ownedBy(obj, owner)
			})) {
				out = append(out, strings.TrimSuffix(list.Kind, "List")+" "+name)
			}
		}
		return out
	}
	why := []any{"objects left of %s in %s once the cleanup deleted them", strings.Join(kinds, ", "), f.Namespace}
	if collectsGarbage {
		Eventually(ctx, left).WithTimeout(Collect).Should(BeEmpty(), why...)
		return
	}
	f.Eventually(ctx, left).WithTimeout(Collect).Should(BeEmpty(), why...)
}

// ownedBy says whether an owner of obj is of kind.
func ownedBy(obj metav1.PartialObjectMetadata, kind string) bool {
	return slices.ContainsFunc(obj.OwnerReferences, func(o metav1.OwnerReference) bool { return o.Kind == kind })
}

// held names each of objects, with the finalizers that hold it: "web, held by the finalizers
// [cache.example.com/finalizer]".
func held(objects []metav1.PartialObjectMetadata) []string {
	out := make([]string, len(objects))
	for i, obj := range objects {
		out[i] = obj.Name
		if len(obj.Finalizers) > 0 {
			out[i] += fmt.Sprintf(", held by the finalizers %v", obj.Finalizers)
		}
	}
	return out
}

// listOf is an empty list of obj's kind, of the objects' metadata.
func (f *Fixture) listOf(obj client.Object) *metav1.PartialObjectMetadataList {
	GinkgoHelper()
	gvk, err := apiutil.GVKForObject(obj, f.Client.Scheme())
	Expect(err).NotTo(HaveOccurred())
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return list
}

// printDiagnostics writes the namespace's events and what the operator and the cluster logged last
// where the spec's output does not show it (SetDefaults).
func (f *Fixture) printDiagnostics(ctx context.Context) {
	events := &eventsv1.EventList{}
	if err := f.Client.List(ctx, events, client.InNamespace(f.Namespace)); err != nil {
		GinkgoWriter.Printf("events of %s: %v\n", f.Namespace, err)
	}
	GinkgoWriter.Printf("\n--- events in %s\n", f.Namespace)
	for _, e := range events.Items {
		GinkgoWriter.Printf("%s %s %s/%s: %s\n", e.Type, e.Reason, e.Regarding.Kind, e.Regarding.Name, e.Note)
	}
	GinkgoWriter.Print(f.Operator.Logs())
}
