package upgrade

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e/tiers"
)

// Interim rollback: from this release back to the interim release, which serves v1beta1 while it
// still stores v1alpha1, with no migration: this release stopped, what it applied handed back, and
// the interim release's config/default. The API server takes its CRD; it keeps each ConfigMap,
// the same object, in sync, and the garbage collector collects the ConfigMap of a Sample deleted;
// an upgrade again then takes back what it wrote meanwhile.
//
// Lesson: the cheap rollback is to a release that still serves the version stored. The interim
// release serves v1beta1 and converts it, so its CRD is taken while storedVersions names v1beta1,
// and every Sample reads as before: none of the migration back that Rollback needs (store
// v1alpha1, rewrite, storedVersions). Only the field manager must go back: the interim release
// writes with merge patches, as "manager", and this release takes over what "manager" owns only
// where it has never applied (Handover). So before the interim release starts, rollback.sh
// hand-back gives what this release applied back to "manager" (and names the owners in v1alpha1,
// which the interim release serves too). That is why a storage version is best flipped in a
// release of its own (docs/api-versions.md): the release before the flip is a rollback target.
//
// Red first: with the interim release deployed over this one and no hand-back, it wrote an empty
// message into the ConfigMap of a Sample whose data holds none (its write, "manager"'s), and the
// upgrade again left it there: this release had applied the ConfigMap before, so it took nothing
// over. The wait failed once the operator settled without the ConfigMap holding its data alone.
//
// Source: beyond both sources: issue #54, a rollback to a release that serves both versions
// (docs/upgrades.md).
//
// By hand (this release deployed, the interim release make previous-release's worktree,
// bin/previous/<commit>):
//
//	kubectl -n operator-demo-system scale deployment operator-demo-controller-manager --replicas 0
//	config/rollback/rollback.sh hand-back
//	kubectl apply -k bin/previous/<commit>/config/default   # its CRD, taken: it serves v1beta1
//	kubectl get samples.v1alpha1.demo.example.com -w   # Ready: "… holds spec.message", the interim release's words
var _ = Describe("The operator", Label("interim-rollback", tiers.NeedsPreviousRelease), Ordered, func() {
	// u is the cluster: the release before, this release, the interim release, then this release
	// again.
	var u *upgraded

	BeforeAll(func(ctx SpecContext) { u = startUpgraded(ctx, "interim-rollback") })

	It("rolls back to the interim release with no migration: each ConfigMap kept and in sync, Ready in its words, its writes each status and one ConfigMap", func(ctx SpecContext) {
		By("stopping this release, and handing what it applied back to the interim release's field manager: rollback.sh hand-back")
		Expect(u.d.Operator.Down()).To(Succeed())
		rollback(ctx, u.d, "hand-back")

		By("deploying the interim release: its CRD, which the API server takes while storedVersions names v1beta1, its config/default, its binary")
		u.f = deploy(ctx, u.d, interim, samples.Interim, u.namespace)
		Expect(storedVersions(ctx, u.d.Client)).To(ConsistOf("v1alpha1", "v1beta1"))
		u.expectOlderConverged(ctx)
	})

	It("keeps a ConfigMap in sync under the interim release, and collects the ConfigMap of a Sample deleted", func(ctx SpecContext) {
		u.expectSyncedAndCollected(ctx)
	})

	It("upgrades again after it: the key the interim release wrote, which spec.data does not hold, leaves the ConfigMap", func(ctx SpecContext) {
		u.upgradeAgain(ctx)
	})
})
