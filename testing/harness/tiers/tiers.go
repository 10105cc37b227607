// Package tiers names the places the scenarios run, cheapest first (envtest; the e2e tier on a
// local control plane; the e2e tier on kind), the labels that say what a scenario needs beyond an
// API server, and which tier leaves out which label. A tier leaves a scenario out by label
// filter, never by a skip inside its body. It imports no cluster, so that what lists the
// scenarios can say where each runs without linking one.
package tiers

import (
	"fmt"
	"os"
	"strings"
)

// The environment variables that choose the tier.
const (
	// Env chooses where the scenarios run: Envtest (the default) or E2E.
	Env = "SCENARIOS_TIER"
	// ProviderEnv chooses the e2e tier's cluster: ProviderLocal (the default) or ProviderKind.
	ProviderEnv = "E2E_PROVIDER"
)

// Their values.
const (
	// Envtest: etcd and kube-apiserver started for the suite, an operator in the test process for
	// each spec.
	Envtest = "envtest"
	// E2E: a real cluster, whose one operator runs as in production.
	E2E = "e2e"
	// ProviderLocal: a control plane on this machine, the operator's binary playing its
	// Deployment.
	ProviderLocal = "local"
	// ProviderKind: a kind cluster, the operator's image deployed by the suite.
	ProviderKind = "kind"
)

// Labels that say what a scenario needs beyond an API server.
const (
	// NeedsInProcessOperator marks a scenario that wires the operator's controllers itself (a stage
	// of a walkthrough, say): only the envtest tier runs the operator in the test process.
	NeedsInProcessOperator = "in-process"
	// NeedsKill marks a scenario that kills the operator with kill -9: the e2e tiers kill its
	// container on the node; the envtest tier's operator is a manager in the test process.
	NeedsKill = "kill"
	// NeedsGarbageCollector marks a scenario that watches the garbage collector delete a
	// dependent: envtest runs no kube-controller-manager, the e2e tier does.
	NeedsGarbageCollector = "garbage-collector"
)

// Tier is a place the scenarios run.
type Tier struct {
	// Provider names what provides its cluster, in the map of providers a suite hands to
	// cluster.Start: Envtest, ProviderLocal or ProviderKind.
	Provider string
	// Excludes are the labels of the scenarios it cannot run.
	Excludes []string
}

// All are the places the scenarios run, cheapest first.
var All = []Tier{
	{Provider: Envtest, Excludes: []string{NeedsGarbageCollector, NeedsKill}},
	{Provider: ProviderLocal, Excludes: []string{NeedsInProcessOperator}},
	{Provider: ProviderKind, Excludes: []string{NeedsInProcessOperator}},
}

// Current is the tier that $SCENARIOS_TIER (default envtest) and $E2E_PROVIDER (default local)
// name.
func Current() (Tier, error) {
	provider := Envtest
	switch tier := os.Getenv(Env); tier {
	case "", Envtest:
	case E2E:
		if provider = os.Getenv(ProviderEnv); provider == "" {
			provider = ProviderLocal
		}
	default:
		return Tier{}, fmt.Errorf("%s=%q: want %s or %s", Env, tier, Envtest, E2E)
	}
	for _, t := range All {
		if t.Provider == provider {
			return t, nil
		}
	}
	return Tier{}, fmt.Errorf("%s=%q: want %s or %s", ProviderEnv, provider, ProviderLocal, ProviderKind)
}

// Runs says whether the tier runs a scenario with these labels.
func (t Tier) Runs(labels ...string) bool {
	for _, l := range t.Excludes {
		for _, have := range labels {
			if l == have {
				return false
			}
		}
	}
	return true
}

// LabelFilter adds to filter (Ginkgo's --label-filter, maybe empty) the exclusions of the tier.
func (t Tier) LabelFilter(filter string) string {
	excludes := make([]string, 0, len(t.Excludes))
	for _, l := range t.Excludes {
		excludes = append(excludes, "!"+l)
	}
	exclude := strings.Join(excludes, " && ")
	if filter == "" {
		return exclude
	}
	return "(" + filter + ") && " + exclude
}
