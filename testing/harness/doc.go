// Package harness is what the scenarios stand on: a control plane (envtest's kube-apiserver and
// etcd, or a real cluster for the e2e tier), the operator running against it, and the few
// helpers every scenario shares. Production code never imports it.
package harness
