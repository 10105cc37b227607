// Package harness is what the scenarios stand on: a cluster (the envtest control plane of
// testing/controlplane, or a real cluster for the e2e tier), the operator running against it, and
// the few helpers every scenario shares. Production code never imports it.
package harness
