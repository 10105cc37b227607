// Package harness is what the Ginkgo suites stand on: a Fixture per spec (a namespace of its own
// and an operator reconciling it, both gone when the spec ends, with the operator's log and the
// namespace's events printed when it fails), the waits every scenario shares, and the timeouts
// Gomega defaults to. It knows the operator under test only as an operator.Subject. It is the
// only package of the harness that imports Ginkgo and Gomega.
package harness
