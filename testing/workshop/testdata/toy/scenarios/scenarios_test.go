// Package scenarios holds the toy specs of the sweep's tests: one that hangs with TOY_HANG set, as
// a break might make it (TestAHangIsAKillByTimeout), one that reads a file of the toy's, as the
// scenarios read a manifest (TestAMutantOfAManifestBreaksWhatTheScenariosRead), and one pending,
// which the sweep leaves out (TestReachRunsEachTestAndSpecAlone).
package scenarios

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Toy")
}

var _ = Describe("A spec", func() {
	It("finishes", func() {})
	It("hangs", func() {
		if os.Getenv("TOY_HANG") != "" {
			select {}
		}
	})
	It("reads the toy's manifest", func() {
		Expect(os.ReadFile(filepath.Join("..", "manifest.txt"))).To(BeEquivalentTo("as written\n"))
	})
	PIt("is pending", func() {})
})
