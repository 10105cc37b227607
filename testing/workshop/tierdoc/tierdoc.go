// Package tierdoc is what this repository's tools say of each tier of tiers.All (testing/e2e/tiers):
// the name the catalogue and make test-first give it, what it proves, and the environment a run
// of the scenarios sets to run there.
package tierdoc

import "example.com/operator-demo/testing/e2e/tiers"

// Tier is a tier of tiers.All, named and described.
type Tier struct {
	tiers.Tier
	// Name is how the catalogue names it: "envtest", "e2e local", "e2e kind".
	Name string
	// Proves says what it runs on and what it proves that the tiers before it do not.
	Proves string
}

// All are tiers.All, cheapest first, named and described.
var All = []Tier{
	{tiers.All[0], "envtest",
		"a real kube-apiserver and etcd, the operator in the test process, one namespace and one manager per spec, " +
			"specs in parallel: every behaviour the API server decides (validation, owner references, conflicts, " +
			"refusals), and the operator rewired where a spec needs it"},
	{tiers.All[1], "e2e local",
		"a local control plane where Docker is absent: kube-controller-manager's garbage collector, " +
			"config/default's RBAC and Service applied, the manager binary playing its Deployment under its " +
			"ServiceAccount's token, its metrics scraped, stopped, started and killed -9 as a process"},
	{tiers.All[2], "e2e kind",
		"kind, each supported minor on GitHub Actions and the default one in .ci/run: a kubeadm cluster " +
			"(CoreDNS, kube-proxy, a kubelet with the systemd cgroup driver), the operator's image built by Docker from " +
			"the Dockerfile and config/default deployed, so a Pod that runs as its Dockerfile and securityContext say, " +
			"within its limits, Ready through its probes, in-cluster with its ServiceAccount's token, its metrics " +
			"Service reached through a port-forward; stopped, started and killed on the node"},
}

// Environment is what a run of the scenarios sets to run on t.
func (t Tier) Environment() []string {
	if t.Provider == tiers.Envtest {
		return []string{tiers.Env + "=" + tiers.Envtest}
	}
	return []string{tiers.Env + "=" + tiers.E2E, tiers.ProviderEnv + "=" + t.Provider}
}
