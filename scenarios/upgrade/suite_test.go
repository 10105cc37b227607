// Package upgrade proves the operator's upgrade from the release before it, built from this
// repository's own history (make previous-release: PREVIOUS_RELEASE, checked out into a worktree),
// on a local control plane: that release deployed first, with its own config/, then replaced by
// this one's. It runs on the e2e tier where Docker is absent (make test-e2e-local, after the
// scenarios): $E2E_PREVIOUS_RELEASE names the worktree, whose manager is built in its bin/;
// $E2E_OPERATOR_BINARY is this release's.
package upgrade

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/harness"
	"example.com/operator-demo/testing/offline/localcluster"
)

// d is the cluster the releases are deployed to, one after the other, shared by every spec of
// this suite, which runs them in order.
var d *localcluster.LocalDeployment

// previous and current are the two releases: the one before, as make previous-release built it,
// and this one.
var previous, current localcluster.Release

func TestUpgrade(t *testing.T) {
	RegisterFailHandler(Fail)
	harness.SetDefaults()
	RunSpecs(t, "Upgrade")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	worktree := os.Getenv("E2E_PREVIOUS_RELEASE")
	Expect(worktree).NotTo(BeEmpty(), "E2E_PREVIOUS_RELEASE names no worktree of the release before: run make test-e2e-local, which runs make previous-release")
	previous = localcluster.Release{Root: worktree, Binary: filepath.Join(worktree, "bin", "manager")}
	root, err := localcluster.Root()
	Expect(err).NotTo(HaveOccurred())
	current = localcluster.Release{Binary: os.Getenv("E2E_OPERATOR_BINARY")} // the working tree's

	By("deploying the release before, with its own CRD and config/default")
	d, err = localcluster.StartRelease(ctx, filepath.Join(root, "reports", "e2e-upgrade"), previous, samples.Previous)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(d.Stop)
})
