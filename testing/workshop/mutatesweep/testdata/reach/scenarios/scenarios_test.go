// Package scenarios holds the specs that TestReachRunsEachTestAndSpecAlone lists: one that runs,
// and one pending, which does not.
package scenarios

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Reach")
}

var _ = Describe("A spec", func() {
	It("runs", func() {})
	PIt("is pending", func() {})
})
