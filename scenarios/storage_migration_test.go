package scenarios

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/scenarios/samples/apidiscovery"
	"example.com/operator-demo/testing/e2e/tiers"
)

// Storage migration: Samples stored as v1alpha1, before v1beta1 was the storage version, are
// rewritten as v1beta1 by a StorageVersionMigration; the CRD's status.storedVersions then names
// v1beta1 alone, and v1alpha1 may leave the CRD, unserved first.
//
// Lesson: a CRD's storage version says how the API server stores what is written from now on,
// not what etcd holds: every Sample written before stays as it was stored until something rewrites
// it, and status.storedVersions keeps naming the old version until then (the API server refuses to
// remove a version from the CRD while it is named there). Kubernetes 1.37's storage version
// migrator (kube-controller-manager) rewrites each object with a patch that changes nothing, which
// the API server stores in the new version, then sets storedVersions itself. A rewrite moves a
// Sample's resourceVersion and nothing else (no generation, no spec), so the operator has nothing
// to do. Only then may the old version be removed; a release unserves it first, and its clients
// get 404 Not Found, while the Samples and the operator, which speak v1beta1, carry on. The
// migration reads every Sample through the conversion webhook: the operator must be up meanwhile.
//
// Source: beyond both sources: issue #53, migrating what is stored (docs/api-versions.md).
//
// By hand (Kubernetes 1.37, the operator deployed with `make deploy`; 1.35 and 1.36: docs/api-versions.md):
//
//	kubectl get crd samples.demo.example.com -o jsonpath='{.status.storedVersions}'   # ["v1alpha1","v1beta1"] after the upgrade
//	kubectl apply -f config/migration/samples.yaml
//	kubectl wait storageversionmigration/samples.demo.example.com --for=condition=Running=false
//	kubectl get storageversionmigration samples.demo.example.com -o jsonpath='{.status.conditions[?(@.type=="Succeeded")].status}'   # True
//	kubectl get crd samples.demo.example.com -o jsonpath='{.status.storedVersions}'   # ["v1beta1"]
//	kubectl patch crd samples.demo.example.com --type json -p '[{"op":"test","path":"/spec/versions/0/name","value":"v1alpha1"},{"op":"replace","path":"/spec/versions/0/served","value":false}]'
//	kubectl get samples.v1alpha1.demo.example.com   # error: the server doesn't have a resource type "samples" in group "v1alpha1.demo.example.com"
var _ = Describe("Sample", Label("storage-migration", tiers.NeedsStorageVersionMigrator), Serial, Ordered, func() {
	// crds reads and writes the cluster's CRDs and StorageVersionMigrations: each spec here changes
	// the Sample CRD that every spec shares, which is why they run alone (Serial) and put it back.
	// api reads the API server's discovery, and reads Samples as a client of one version does.
	var crds client.Client
	var api discovery.DiscoveryInterface
	BeforeAll(func() {
		scheme := runtime.NewScheme()
		Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
		Expect(storagemigrationv1.AddToScheme(scheme)).To(Succeed())
		var err error
		crds, err = client.New(suiteCluster.Config, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		api, err = discovery.NewDiscoveryClientForConfig(suiteCluster.Config)
		Expect(err).NotTo(HaveOccurred())
	})

	Context("when Samples were stored as v1alpha1, before v1beta1 was the storage version", func() {
		// Characterization: written after the migration it proves, because the migration is
		// Kubernetes' own (kube-controller-manager's storage version migrator, started by
		// config/migration/samples.yaml), not the operator's code: it failed on the local tier
		// until that tier ran the migrator, and passes against any operator that converts.
		//
		// No break reaches it: that Samples stored as v1alpha1 are rewritten as v1beta1 with the
		// data they were written with, because the sweep's breaks of the operator's code run on
		// envtest alone, where no kube-controller-manager runs a migration. (make mutate's break of
		// a manifest, config/migration/samples.yaml, not of the code, fails it on the local tier.)
		It("rewrites each as v1beta1 through a StorageVersionMigration, leaves storedVersions naming v1beta1 alone, and the operator writes nothing", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)

			By("storing Samples as v1alpha1, as the release before v1beta1 did")
			setVersion(ctx, crds, "v1alpha1", func(v *apiextensionsv1.CustomResourceDefinitionVersion) { v.Storage = true })
			DeferCleanup(func(ctx SpecContext) {
				setVersion(ctx, crds, "v1beta1", func(v *apiextensionsv1.CustomResourceDefinitionVersion) { v.Storage = true })
				eventuallyStoredAs(ctx, api, "v1beta1")
				eventuallyWatching(ctx, f, "after-storage")
			})
			eventuallyStoredAs(ctx, api, "v1alpha1")
			data := []map[string]string{
				{demov1alpha1.MessageKey: "hello world"},
				{demov1alpha1.MessageKey: "hello world", "colour": "blue"},
			}
			written := []client.Object{
				f.CreateSample(ctx, "written-old", data[0][demov1alpha1.MessageKey]),
				f.CreateSampleData(ctx, "written-new", data[1]),
			}
			var configMaps []client.Object
			for _, sample := range written {
				configMaps = append(configMaps, f.EventuallySynced(ctx, sample))
			}

			By("storing them as v1beta1 again, as the upgrade does: what etcd holds stays as it was")
			setVersion(ctx, crds, "v1beta1", func(v *apiextensionsv1.CustomResourceDefinitionVersion) { v.Storage = true })
			eventuallyStoredAs(ctx, api, "v1beta1")
			Expect(storedVersions(ctx, crds)).To(ConsistOf("v1alpha1", "v1beta1"))
			base := f.EventuallySettled(ctx)
			before := make([]*demov1beta1.Sample, len(written))
			for i, sample := range written {
				before[i] = &demov1beta1.Sample{}
				Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(sample), before[i])).To(Succeed())
			}

			By("migrating what is stored with config/migration/samples.yaml's StorageVersionMigration")
			migration := &storagemigrationv1.StorageVersionMigration{}
			Expect(samples.ReadManifest("config/migration/samples.yaml", migration)).To(Succeed())
			Expect(crds.Create(ctx, migration)).To(Succeed())
			DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(crds.Delete(ctx, migration))).To(Succeed()) })
			Eventually(ctx, func(g Gomega) []metav1.Condition {
				g.Expect(crds.Get(ctx, client.ObjectKeyFromObject(migration), migration)).To(Succeed())
				if failed := meta.FindStatusCondition(migration.Status.Conditions, string(storagemigrationv1.MigrationFailed)); failed != nil && failed.Status == metav1.ConditionTrue {
					StopTrying(fmt.Sprintf("the migration failed: %s", failed.Message)).Now()
				}
				return migration.Status.Conditions
			}).WithTimeout(migrate).Should(ContainElements(
				And(HaveField("Type", string(storagemigrationv1.MigrationSucceeded)), HaveField("Status", metav1.ConditionTrue)),
				And(HaveField("Type", string(storagemigrationv1.MigrationRunning)), HaveField("Status", metav1.ConditionFalse)),
			), "the StorageVersionMigration's conditions: Succeeded, then no longer Running once storedVersions is set")

			By("checking the CRD's storedVersions: v1beta1 alone")
			Expect(storedVersions(ctx, crds)).To(Equal([]string{"v1beta1"}))

			By("checking that each Sample was rewritten, its resourceVersion moved, its generation as it was, its data as written")
			for i, sample := range written {
				after := &demov1beta1.Sample{}
				Expect(f.Client.Get(ctx, client.ObjectKeyFromObject(sample), after)).To(Succeed())
				Expect(after.ResourceVersion).NotTo(Equal(before[i].ResourceVersion), "Sample %s was not rewritten", sample.GetName())
				Expect(after.Generation).To(Equal(before[i].Generation), "Sample %s", sample.GetName())
				Expect(after.Spec.Data).To(Equal(data[i]), "Sample %s: the data it was written with", sample.GetName())
				written[i] = after
			}

			By("checking that the operator wrote nothing for it, and nothing moves")
			f.ExpectAtRest(ctx, HaveField("Writes", Equal(base.Writes)), append(configMaps, written...)...)
		})
	})

	Context("when v1alpha1 is no longer served, the step before it leaves the CRD", func() {
		// Characterization: written after what it shows a v1alpha1 client, because the API
		// server answers that client, not the operator: it pins the operator's part, a Sample
		// kept in sync through v1beta1 alone.
		//
		// No break reaches it: that the operator keeps a Sample in sync with v1alpha1 unserved,
		// because the sweep's breaks run on envtest alone, where the migration before it cannot.
		It("answers v1alpha1's clients 404 Not Found, while the Sample, read as v1beta1, is kept in sync", Label("characterization"), func(ctx SpecContext) {
			f := samples.NewFixture(ctx, suiteCluster)
			sample := f.CreateSampleData(ctx, "kept", map[string]string{demov1alpha1.MessageKey: "hello world"})
			f.EventuallySynced(ctx, sample)
			Expect(readAs(api, "v1alpha1", sample)(ctx)).To(Succeed(), "read through v1alpha1 while it is served")

			By("no longer serving v1alpha1")
			setVersion(ctx, crds, "v1alpha1", func(v *apiextensionsv1.CustomResourceDefinitionVersion) { v.Served = false })
			DeferCleanup(func(ctx SpecContext) {
				setVersion(ctx, crds, "v1alpha1", func(v *apiextensionsv1.CustomResourceDefinitionVersion) { v.Served = true })
				eventuallyServed(ctx, api, "v1alpha1")
				eventuallyWatching(ctx, f, "after-served")
			})

			By("reading it through v1alpha1, as a client of the old version does")
			Eventually(ctx, readAs(api, "v1alpha1", sample)).Should(Satisfy(apierrors.IsNotFound))

			By("changing it through v1beta1, and waiting for the operator to keep its ConfigMap in sync")
			Expect(samples.MergePatch(ctx, f.Client, sample, sample.Namespace, sample.Name, `{"spec":{"data":{"colour":"blue"}}}`)).To(Succeed())
			cm := f.EventuallySynced(ctx, sample)
			Expect(cm.Data).To(HaveKeyWithValue("colour", "blue"))
		})
	})
})

// migrate bounds a StorageVersionMigration of a spec's few Samples: kube-controller-manager's
// migrator waits for its garbage collector's view of the resource to catch up, retrying with a
// backoff that doubles (its tries at about 41 s, 82 s, 164 s).
const migrate = 3 * time.Minute

// setVersion changes the Sample CRD's version named version with change (and every other
// version's Storage to false when change sets it), as a kubectl patch of the CRD would.
func setVersion(ctx context.Context, crds client.Client, version string, change func(*apiextensionsv1.CustomResourceDefinitionVersion)) {
	GinkgoHelper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := crds.Get(ctx, client.ObjectKey{Name: samples.CRDName}, crd); err != nil {
			return err
		}
		i := slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == version })
		if i < 0 {
			return fmt.Errorf("CRD %s has no version %s", samples.CRDName, version)
		}
		change(&crd.Spec.Versions[i])
		for j := range crd.Spec.Versions {
			if j != i && crd.Spec.Versions[i].Storage {
				crd.Spec.Versions[j].Storage = false
			}
		}
		return crds.Update(ctx, crd)
	})).To(Succeed(), "CRD %s, version %s", samples.CRDName, version)
}

// storedVersions is the Sample CRD's status.storedVersions.
func storedVersions(ctx context.Context, crds client.Client) []string {
	GinkgoHelper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(crds.Get(ctx, client.ObjectKey{Name: samples.CRDName}, crd)).To(Succeed())
	return crd.Status.StoredVersions
}

// eventuallyStoredAs waits until the API server announces that it stores Samples as version: the
// storageVersionHash of samples in its discovery document, which it updates once it serves the
// CRD as changed (the way kube-storage-version-migrator tells when a migration is due).
func eventuallyStoredAs(ctx context.Context, api discovery.DiscoveryInterface, version string) {
	GinkgoHelper()
	Eventually(ctx, func() ([]metav1.APIResource, error) {
		return apidiscovery.Samples(api, demov1beta1.GroupVersion.Version)
	}).Should(apidiscovery.StoredAs(version), "samples in %s's discovery, announcing it stores %s", demov1beta1.GroupVersion, version)
}

// eventuallyWatching waits until the operator syncs a Sample created now, name, in f's namespace:
// the spec that changes the CRD leaves it watching Samples again. A change of the CRD ends every
// watch of Samples, the operator's too, and its informer sees Samples again only once it has
// listed them anew. Until then the operator is quiet because it cannot see, not because it has
// settled, and the fixture's waits, which end once it is quiet, fail: Operator down, run next on
// kind, failed so (its Sample's ConfigMap not there when the operator had been quiet for 1.6 s).
// So this wait is Gomega's, bounded by the suite's default timeout, not the fixture's.
func eventuallyWatching(ctx context.Context, f *samples.Fixture, name string) {
	GinkgoHelper()
	cm := samples.ConfigMapOf(f.CreateSample(ctx, name, "hello world"))
	Eventually(ctx, func() error { return f.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm) }).
		Should(Succeed(), "the operator syncs a Sample created once the CRD is back as it was")
}

// eventuallyServed waits until the API server's discovery lists samples in version, as a client
// that maps the kind through discovery needs it to.
func eventuallyServed(ctx context.Context, api discovery.DiscoveryInterface, version string) {
	GinkgoHelper()
	Eventually(ctx, func() ([]metav1.APIResource, error) {
		return apidiscovery.Samples(api, version)
	}).Should(ContainElement(HaveField("Name", "samples")), "samples served in %s", version)
}

// readAs reads sample through the API's version, as a client of that version alone does, with no
// mapping cached from before.
func readAs(api discovery.DiscoveryInterface, version string, sample client.Object) func(context.Context) error {
	return func(ctx context.Context) error {
		return api.RESTClient().Get().
			AbsPath("/apis", demov1beta1.GroupVersion.Group, version, "namespaces", sample.GetNamespace(), "samples", sample.GetName()).
			Do(ctx).Error()
	}
}
