// Package harness is what the Ginkgo suites stand on: a Fixture per spec (a namespace of its own
// and an operator reconciling it, both gone when the spec ends, with the operator's log and the
// namespace's events printed when it fails), the waits every scenario shares, and the timeouts
// Gomega defaults to. It is the only package of testing/ that imports Ginkgo and Gomega: the
// clusters, the operator under test and the checks it uses are plain Go (packages cluster,
// operator, samples), for the demo and the bench as much as for the tests.
package harness
