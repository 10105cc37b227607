package upgrade

import (
	"context"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/api/conditions"
	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/controllers"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/offline/localcluster"
)

// Upgrade: Samples that the release before converged keep their ConfigMaps, the same objects,
// through the operator's upgrade; Ready never turns False; the upgrade costs two writes of each
// ConfigMap and one of each status, and nothing more; and then nothing moves.
//
// Lesson: an upgrade replaces the CRD (v1beta1 served and stored, converted by the operator's
// webhook) and the operator at once. What the release before wrote stays as it was: the Samples
// stay stored as v1alpha1 until they are migrated (Storage migration), and their ConfigMaps keep
// their data. Each costs what the new release wants otherwise, counted here so that nothing else
// creeps in: the handover of what the release before's merge patches own (Handover), so that a key
// later removed from spec.data leaves it; then an apply of its owner reference, which the release
// before named in v1alpha1 and this one names in v1beta1, the version the garbage collector will
// still resolve once v1alpha1 leaves the API; and one status write, for Ready's message, reworded
// ("holds spec.message" became "matches the Sample's spec"), while its status and transition time
// stay as they were.
//
// Characterization: written after the handover it counts (Handover, test first on envtest), when
// the release before could first be deployed from this repository's history. It failed first on
// its own guess of one write of each ConfigMap and none of status; the audit log showed what each
// is, and this is what it holds.
//
// Source: beyond both sources: issue #54, the operator replaced by its next release
// (docs/upgrades.md).
//
// By hand (the release before is make previous-release's worktree, bin/previous/<commit>):
//
//	git -C bin/previous/<commit> log -1 --oneline   # the release before v1beta1
//	kubectl get configmap sample-sample-config -o jsonpath='{.metadata.uid}'   # before, and the same after
//	make deploy   # this release
//	kubectl get samples.v1alpha1.demo.example.com -w   # Ready stays True
var _ = Describe("The operator", Label("upgrade", tiers.NeedsPreviousRelease), Ordered, func() {
	const namespace = "upgrade"
	names := []string{"first", "second"}
	// The Samples and their ConfigMaps, as the release before left them.
	var written []*demov1alpha1.Sample
	var configMaps []*corev1.ConfigMap
	// d is the cluster the releases are deployed to, one after the other; f is this release's,
	// once deployed: the harness's waits on the namespace and its operator.
	var d *localcluster.LocalDeployment
	var f *samples.Fixture

	BeforeAll(func(ctx SpecContext) { d = startPrevious(ctx, namespace) })

	It("converges Samples under the release before, which writes their ConfigMaps with merge patches", func(ctx SpecContext) {
		for _, name := range names {
			written = append(written, samples.New(namespace, name, "hello world"))
			Expect(d.Client.Create(ctx, written[len(written)-1])).To(Succeed())
		}
		for _, sample := range written {
			cm := fixture(d, namespace).EventuallySynced(ctx, sample)
			Expect(cm.ManagedFields).To(ContainElement(HaveField("Manager", controllers.PreviousFieldManager)), "ConfigMap %s", cm.Name)
			configMaps = append(configMaps, cm)
		}
	})

	It("keeps each ConfigMap through the upgrade, never turns Ready False, writes each ConfigMap twice and each status once, then nothing", func(ctx SpecContext) {
		By("stopping the release before, and replacing its CRD with this release's")
		Expect(d.ReplaceCRDs(current, samples.Operator)).To(Succeed())

		By("watching every Sample's Ready condition from now on, before this release starts: the API server ends a watch when the CRD changes, and no operator runs meanwhile")
		list := &demov1alpha1.SampleList{}
		Expect(d.Client.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		Expect(list.Items).To(HaveLen(len(names)))
		transitions := map[string]metav1.Time{}
		for _, sample := range list.Items {
			Expect(meta.IsStatusConditionTrue(sample.Status.Conditions, conditions.Ready)).To(BeTrue(), "Sample %s: %v", sample.Name, sample.Status.Conditions)
			transitions[sample.Name] = meta.FindStatusCondition(sample.Status.Conditions, conditions.Ready).LastTransitionTime
		}
		ready := watchReady(ctx, d, namespace, list.ResourceVersion)

		By("deploying this release: its config/default, its binary")
		Expect(d.Deploy(ctx, current, samples.Operator)).To(Succeed())
		f = fixture(d, namespace)

		By("waiting for it to settle, and counting its writes from the API server's audit log: two of each ConfigMap, one of each status")
		settled := f.EventuallySettled(ctx)
		n := float64(len(names))
		Expect(settled.ByResource).To(Equal(map[string]float64{"configmaps": 2 * n, "samples/status": n}), "the operator's writes since the upgrade, by resource")

		By("checking that each ConfigMap is the one the release before wrote, now operator-demo's alone, its owner named in v1beta1")
		for _, cm := range configMaps {
			now := &corev1.ConfigMap{}
			Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(cm), now)).To(Succeed())
			Expect(now.UID).To(Equal(cm.UID), "ConfigMap %s was replaced", cm.Name)
			Expect(now.ManagedFields).NotTo(ContainElement(HaveField("Manager", controllers.PreviousFieldManager)), "ConfigMap %s", cm.Name)
			Expect(now.OwnerReferences).To(ConsistOf(HaveField("APIVersion", demov1beta1.GroupVersion.String())), "ConfigMap %s", cm.Name)
		}

		By("checking that nothing moves at rest")
		objects := make([]client.Object, 0, len(written)+len(configMaps))
		for _, sample := range written {
			objects = append(objects, sample)
		}
		for _, cm := range configMaps {
			objects = append(objects, cm)
		}
		for _, obj := range objects {
			Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		}
		f.ExpectAtRest(ctx, HaveField("Writes", Equal(settled.Writes)), objects...)

		By("checking that the watch, started before the upgrade, still sees every change: a Sample annotated now")
		before := len(ready.seen())
		sample := written[0]
		Expect(samples.MergePatch(ctx, d.Client, sample, namespace, sample.Name, `{"metadata":{"annotations":{"upgrade.test/seen":"yes"}}}`)).To(Succeed())
		Eventually(ctx, func() int { return len(ready.seen()) }).Should(BeNumerically(">", before), "the watch's events of Ready")

		By("checking that no Sample's Ready condition was False at any time, and that each is True now, since the time it was before")
		Expect(ready.seen()).NotTo(ContainElement(metav1.ConditionFalse))
		for _, sample := range written {
			Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(sample), sample)).To(Succeed())
			Expect(meta.FindStatusCondition(sample.Status.Conditions, conditions.Ready)).To(And(
				HaveField("Status", metav1.ConditionTrue),
				HaveField("LastTransitionTime", transitions[sample.Name]),
			), "Sample %s's Ready", sample.Name)
		}
	})

	It("removes from a ConfigMap the release before wrote the key that spec.data no longer holds", func(ctx SpecContext) {
		sample := written[0]
		By("replacing spec.data's message with another key, through v1beta1")
		Expect(samples.MergePatch(ctx, d.Client, &demov1beta1.Sample{}, namespace, sample.Name, `{"spec":{"data":{"message":null,"greeting":"hi"}}}`)).To(Succeed())

		By("waiting for the ConfigMap to hold that key alone")
		cm := samples.ConfigMapOf(sample)
		f.Eventually(ctx, func(g Gomega) map[string]string {
			g.Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm)).To(Succeed())
			return cm.Data
		}).Should(Equal(map[string]string{"greeting": "hi"}))
	})
})

// readiness is what a watch of the Samples of a namespace saw of their Ready
// conditions: each status, in order. It resumes from the last resourceVersion it saw when the API
// server ends it (watchtools.RetryWatcher): it misses no change, or fails. (A CRD's change ends
// it for good: the API server's new watch cache starts past what it saw.)
type readiness struct {
	mu       sync.Mutex
	statuses []metav1.ConditionStatus
	err      error
}

// watchReady watches the Samples of namespace in d from resourceVersion on, until the spec ends.
func watchReady(ctx context.Context, d *localcluster.LocalDeployment, namespace, resourceVersion string) *readiness {
	GinkgoHelper()
	c, err := client.NewWithWatch(d.Config, client.Options{Scheme: samples.Operator.Scheme})
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, samplesIn{c, namespace})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { cancel(); rw.Stop(); <-rw.Done() })
	r := &readiness{}
	go func() {
		defer GinkgoRecover()
		for event := range rw.ResultChan() {
			r.mu.Lock()
			if sample, ok := event.Object.(*demov1alpha1.Sample); ok {
				if c := meta.FindStatusCondition(sample.Status.Conditions, conditions.Ready); c != nil {
					r.statuses = append(r.statuses, c.Status)
				}
			} else if event.Type == watch.Error {
				r.err = fmt.Errorf("the watch of the Samples failed: %v", event.Object)
			}
			r.mu.Unlock()
		}
	}()
	return r
}

// seen is every Ready status the watch saw; it fails the spec if the watch failed.
func (r *readiness) seen() []metav1.ConditionStatus {
	GinkgoHelper()
	r.mu.Lock()
	defer r.mu.Unlock()
	Expect(r.err).NotTo(HaveOccurred())
	return r.statuses
}

// samplesIn watches the v1alpha1 Samples of a namespace, for a RetryWatcher.
type samplesIn struct {
	c         client.WithWatch
	namespace string
}

// WatchWithContext watches them from what opts say (their resourceVersion, the RetryWatcher's).
func (s samplesIn) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return s.c.Watch(ctx, &demov1alpha1.SampleList{}, client.InNamespace(s.namespace), &client.ListOptions{Raw: &opts})
}
