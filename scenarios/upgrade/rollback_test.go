package upgrade

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"example.com/operator-demo/api/conditions"
	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/controllers"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/scenarios/samples/apidiscovery"
	"example.com/operator-demo/testing/e2e/tiers"
	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/offline/localcluster"
)

// Rollback: from this release back to the release before, with what the upgrade left (the CRD at
// this release's, the Samples stored as v1beta1). The release before's CRD is refused; with the
// operator alone rolled back, no Sample can be read or created through v1alpha1, the release
// before's only version; the documented procedure (docs/upgrades.md, config/rollback/rollback.sh)
// takes the cluster back, and the release before then keeps every ConfigMap, Ready never False,
// and collects the ConfigMap of a Sample deleted.
//
// Lesson: a rollback is an upgrade to an older release, and the cluster does not go back by
// itself. The API server keeps what the newer release changed: the Samples stay stored as
// v1beta1, a version the release before neither serves nor converts, and the CRD's
// status.storedVersions names it, so the API server refuses a CRD without it. The conversion
// webhook goes with the newer release, so its Deployment alone rolled back leaves every Sample
// unreadable through v1alpha1. The safe way back is the upgrade's migration run backwards while
// this release still runs and converts: v1alpha1 stored again, every Sample rewritten, storedVersions
// v1alpha1 alone; then, with this release stopped, each ConfigMap's owner named in v1alpha1 (the
// garbage collector resolves an owner by the version its reference names, and v1beta1 is about to
// leave the API), and what this release applied handed back to the release before's field manager
// (the upgrade's handover, backwards: else an upgrade again would leave what the release before
// wrote meanwhile co-owned for good); and only then the release before's CRD and operator.
//
// Red first. Without the owners named in v1alpha1, the garbage collector never deleted the
// ConfigMap of a Sample deleted under the release before: it could not resolve an owner named in
// v1beta1 once that version had left the API. Without the handback, the upgrade again left the
// empty message that the release before had written into a ConfigMap whose Sample holds none.
// Clearing the field managers instead ([{}]), or removing this release's entry alone, was no
// better: a ConfigMap left with no entry had none either after the release before's write (the API
// server tracks no update of an object that lists no field manager), and the message stayed.
// The procedure is config/rollback/rollback.sh, which this scenario runs: with its rewrite
// rewriting nothing, its check failed, naming each Sample; with its hand-back leaving the owners
// named in v1beta1, so did the check of each ConfigMap's owner; with its proof that no conversion
// webhook answers taken out of its check, the check run while one does was not refused.
//
// Source: beyond both sources: issue #54, the operator rolled back (docs/upgrades.md).
//
// By hand (this release deployed over the release before, as the upgrade left it):
//
//	kubectl apply -f bin/previous/<commit>/config/crd/bases   # … is invalid: status.storedVersions[1]: Invalid value: "v1beta1": missing from spec.versions; …
//	config/rollback/rollback.sh store-v1alpha1   # this release still running; it returns once the API server stores v1alpha1
//	config/rollback/rollback.sh rewrite > samples.txt
//	kubectl -n operator-demo-system scale deployment operator-demo-controller-manager --replicas 0
//	config/rollback/rollback.sh check samples.txt   # each Sample reads through v1alpha1, with no webhook
//	config/rollback/rollback.sh stored-versions
//	config/rollback/rollback.sh hand-back   # owners in v1alpha1, this release's fields back to "manager"
//	kubectl apply -k bin/previous/<commit>/config/default   # the release before, its CRD included
var _ = Describe("The operator", Label("rollback", tiers.NeedsPreviousRelease), Ordered, func() {
	// u is the cluster: the release before, then this release, then the release before again.
	var u *upgraded

	BeforeAll(func(ctx SpecContext) { u = startUpgraded(ctx, "rollback") })

	It("cannot take the release before's CRD while Samples are stored as v1beta1: the API server refuses it, and this release carries on", func(ctx SpecContext) {
		By("applying the release before's CRD, which serves v1alpha1 alone")
		_, err := envtest.InstallCRDs(u.d.Config, envtest.CRDInstallOptions{Paths: []string{filepath.Join(previous.Root, "config", "crd", "bases")}, ErrorIfPathMissing: true})
		Expect(err).To(MatchError(And(ContainSubstring("status.storedVersions"), ContainSubstring(`"v1beta1"`))), "the API server's refusal names storedVersions and v1beta1")
		Expect(storedVersions(ctx, u.d.Client)).To(ConsistOf("v1alpha1", "v1beta1"))

		By("checking that this release still keeps a Sample in sync")
		Expect(samples.MergePatch(ctx, u.d.Client, &demov1beta1.Sample{}, u.namespace, u.kept.Name, `{"spec":{"data":{"greeting":"hello"}}}`)).To(Succeed())
		u.f.EventuallySynced(ctx, &demov1beta1.Sample{ObjectMeta: metav1.ObjectMeta{Namespace: u.namespace, Name: u.kept.Name}})
	})

	It("leaves no Sample readable or creatable through v1alpha1, the release before's only version, when only its Deployment is rolled back: the conversion webhook leaves with this release", func(ctx SpecContext) {
		By("stopping this release and the conversion webhook it serves, as rolling back its Deployment alone does")
		Expect(u.d.Operator.Down()).To(Succeed())
		Expect(u.d.Webhooks.Down()).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { u.f = deploy(ctx, u.d, current, samples.Operator, u.namespace) }) // for the specs after this one

		By("reading a Sample through v1alpha1, the release before's only version, and creating one: the API server can convert neither")
		// A read names the Sample: a list may still be answered from the API server's cache of
		// v1alpha1, which holds what it converted while the webhook was up.
		refused := MatchError(MatchRegexp(`conversion webhook for demo\.example\.com/v1(alpha|beta)1, Kind=Sample failed`))
		for _, name := range []string{u.kept.Name, u.keys.Name} {
			Eventually(ctx, func() error {
				return u.d.Client.Get(ctx, client.ObjectKey{Namespace: u.namespace, Name: name}, &demov1alpha1.Sample{})
			}).Should(refused, "Sample %s", name)
		}
		Expect(u.d.Client.Create(ctx, samples.New(u.namespace, "unwritten", "hello world"))).To(refused)
	})

	It("takes the cluster back by the documented procedure: v1alpha1 stored again while this release converts, owners named in v1alpha1, then the release before", func(ctx SpecContext) {
		By("storing Samples as v1alpha1 again, while this release still runs and converts: rollback.sh store-v1alpha1, which returns once the API server announces it")
		rollback(ctx, u.d, "store-v1alpha1")
		api, err := discovery.NewDiscoveryClientForConfig(u.d.Config)
		Expect(err).NotTo(HaveOccurred())
		Expect(apidiscovery.Samples(api, "v1alpha1")).To(apidiscovery.StoredAs("v1alpha1"), "the API server's discovery, once rollback.sh store-v1alpha1 returned")

		By("rewriting every Sample, which the API server now stores as v1alpha1: rollback.sh rewrite, which names each")
		names := rollback(ctx, u.d, "rewrite")
		Expect(strings.Split(strings.TrimSpace(names), "\n")).To(HaveExactElements("# 2 Samples", u.namespace+" "+u.kept.Name, u.namespace+" "+u.keys.Name),
			"what rollback.sh rewrite printed: its count, then each Sample, in the API server's order")
		written := filepath.Join(GinkgoT().TempDir(), "samples.txt")
		Expect(os.WriteFile(written, []byte(names), 0o600)).To(Succeed())

		By("checking with rollback.sh check while the conversion webhook still answers: it refuses, since every read would then succeed")
		_, err = runRollback(ctx, u.d, "check", written)
		Expect(err).To(MatchError(ContainSubstring("the conversion webhook still answers")))

		By("stopping this release and its conversion webhook, and reading each Sample through v1alpha1 with rollback.sh check: stored so, it needs no conversion")
		Expect(u.d.Operator.Down()).To(Succeed())
		Expect(u.d.Webhooks.Down()).To(Succeed())
		rollback(ctx, u.d, "check", written)

		By("naming v1alpha1 alone in the CRD's storedVersions: rollback.sh stored-versions")
		rollback(ctx, u.d, "stored-versions")
		Expect(storedVersions(ctx, u.d.Client)).To(Equal([]string{"v1alpha1"}))

		By("naming each ConfigMap's owner in v1alpha1, and handing what this release applied back to the release before's field manager (rollback.sh hand-back): an upgrade again hands over what that manager owns only where this release has no apply entry")
		rollback(ctx, u.d, "hand-back")
		for _, cm := range u.configMaps {
			Expect(u.d.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm)).To(Succeed())
			Expect(cm.OwnerReferences).To(ConsistOf(HaveField("APIVersion", demov1alpha1.GroupVersion.String())), "ConfigMap %s", cm.Name)
			Expect(cm.ManagedFields).To(And(
				Not(ContainElement(HaveField("Manager", controllers.FieldOwner))),
				ContainElement(And(HaveField("Manager", controllers.PreviousFieldManager), HaveField("Operation", metav1.ManagedFieldsOperationUpdate))),
			), "ConfigMap %s", cm.Name)
		}

		By("installing the release before's CRD, which the API server now accepts")
		Expect(u.d.ReplaceCRDs(previous, samples.Previous)).To(Succeed())
		list := &demov1alpha1.SampleList{}
		Expect(u.d.Client.List(ctx, list, client.InNamespace(u.namespace))).To(Succeed())
		transitions := map[string]metav1.Time{}
		for _, sample := range list.Items {
			ready := meta.FindStatusCondition(sample.Status.Conditions, conditions.Ready)
			Expect(ready).NotTo(BeNil(), "Sample %s's Ready", sample.Name)
			transitions[sample.Name] = ready.LastTransitionTime
		}

		By("deploying the release before: its config/default, its binary")
		Expect(u.d.Deploy(ctx, previous, samples.Previous)).To(Succeed())
		u.f = fixture(u.d, u.namespace)
		u.expectOlderConverged(ctx)

		By("checking that each Sample has been Ready since the time it was: its one status write since left it True")
		for _, name := range []string{u.kept.Name, u.keys.Name} {
			sample := &demov1alpha1.Sample{}
			Expect(u.d.Client.Get(ctx, client.ObjectKey{Namespace: u.namespace, Name: name}, sample)).To(Succeed())
			Expect(meta.FindStatusCondition(sample.Status.Conditions, conditions.Ready)).To(And(
				HaveField("Status", metav1.ConditionTrue),
				HaveField("LastTransitionTime", transitions[sample.Name]),
			), "Sample %s's Ready", sample.Name)
		}
	})

	It("keeps a ConfigMap in sync under the release before, and collects the ConfigMap of a Sample deleted", func(ctx SpecContext) {
		u.expectSyncedAndCollected(ctx)
	})

	It("upgrades again after the rollback: the key the release before wrote meanwhile, which spec.data does not hold, leaves the ConfigMap", func(ctx SpecContext) {
		u.upgradeAgain(ctx)
	})
})

// sampleCRD is the Sample CRD, to read and write as kubectl does, whatever its versions.
func sampleCRD() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiextensions.k8s.io/v1")
	u.SetKind("CustomResourceDefinition")
	u.SetName(samples.CRDName)
	return u
}

// storedVersions is the Sample CRD's status.storedVersions.
func storedVersions(ctx context.Context, c client.Client) []string {
	GinkgoHelper()
	u := sampleCRD()
	Expect(c.Get(ctx, client.ObjectKeyFromObject(u), u)).To(Succeed())
	versions, _, err := unstructured.NestedStringSlice(u.Object, "status", "storedVersions")
	Expect(err).NotTo(HaveOccurred())
	return versions
}

// rollback runs step (with its arguments) of config/rollback/rollback.sh, the documented rollback
// (docs/upgrades.md), against d as its cluster administrator, with the kubectl of d's control
// plane, and returns what it printed. A step that fails fails the spec with what it said.
func rollback(ctx context.Context, d *localcluster.LocalDeployment, step ...string) string {
	GinkgoHelper()
	out, err := runRollback(ctx, d, step...)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// runRollback runs step as rollback does, and returns what it printed, or an error with what it
// said.
func runRollback(ctx context.Context, d *localcluster.LocalDeployment, step ...string) (string, error) {
	script, err := controlplane.Find(filepath.Join("config", "rollback", "rollback.sh"))
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "bash", append([]string{script}, step...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+d.AdminKubeconfig,
		"PATH="+filepath.Dir(d.ControlPlane.KubectlPath)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.WaitDelay = 5 * time.Second // a cancelled spec does not wait on kubectl's pipes
	var said bytes.Buffer
	cmd.Stderr = io.MultiWriter(&said, GinkgoWriter)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("rollback.sh %s: %w; it said: %s", strings.Join(step, " "), err, said.String())
	}
	return string(out), nil
}
