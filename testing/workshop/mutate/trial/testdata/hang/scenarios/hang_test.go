// Package scenarios is a spec that a break made hang, for TestAHangIsAKillByTimeout.
package scenarios

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Hang")
}

var _ = Describe("A spec", func() {
	It("finishes", func() {})
	It("hangs", func() { select {} })
})
