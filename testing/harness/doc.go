// Package harness is what the Ginkgo suites stand on: a Fixture per spec (a namespace of its own
// and an operator reconciling it, both gone when the spec ends, with the operator's log and the
// namespace's events printed when it fails), the waits every scenario shares, and the timeouts
// Gomega defaults to. It knows the operator under test only as the cluster's operator.Subject;
// what "done" means for that operator's kind lives beside the scenarios. It is the only package of testing/ that imports Ginkgo and Gomega.
package harness
