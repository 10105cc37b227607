// Package tiers names the places the scenarios run, cheapest first (envtest; the e2e tier on a
// local control plane; the e2e tier on kind), the labels that say what a scenario needs beyond an
// API server, and which tier leaves out which label: by label filter, never by a skip inside a
// spec. A suite that runs on every tier chooses its cluster with Provider and its specs with the
// tier's LabelFilter.
package tiers

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
)

// The environment variables that choose the tier, and their values.
const (
	// Env chooses where the scenarios run: Envtest (the default) or E2E.
	Env = "SCENARIOS_TIER"
	// ProviderEnv chooses the e2e tier's cluster: ProviderLocal (the default) or ProviderKind.
	ProviderEnv = "E2E_PROVIDER"
	// MinorEnv names the Kubernetes minor the cluster runs ("1.37"), as the Makefile's
	// ENVTEST_K8S_VERSION does (unset: the newest supported): a minor older than a label's
	// feature leaves its scenarios out (SinceMinor).
	MinorEnv = "ENVTEST_K8S_VERSION"

	// Envtest: etcd and kube-apiserver started for the suite, an operator in the test process for
	// each spec.
	Envtest = "envtest"
	// E2E: a real cluster, whose one operator runs as in production.
	E2E = "e2e"
	// ProviderLocal: a control plane on this machine, the operator's binary its Deployment.
	ProviderLocal = "local"
	// ProviderKind: a kind cluster, the operator's image deployed by the suite.
	ProviderKind = "kind"
)

// Labels that say what a scenario needs beyond an API server.
const (
	// NeedsInProcessOperator marks a scenario that changes the operator's controllers (a stage of
	// a walkthrough, say): only the envtest tier runs the operator in the test process.
	NeedsInProcessOperator = "in-process"
	// NeedsKill marks a scenario that kills the operator with kill -9, which the e2e tiers do on
	// its node; the envtest tier's operator is a manager in the test process.
	NeedsKill = "kill"
	// NeedsGarbageCollector marks a scenario that watches the garbage collector delete a
	// dependent: envtest runs no kube-controller-manager, the e2e tier does.
	NeedsGarbageCollector = "garbage-collector"
	// NeedsStorageVersionMigrator marks a scenario that migrates what is stored through a
	// StorageVersionMigration (storagemigration.k8s.io/v1, Kubernetes 1.37), which
	// kube-controller-manager's storage version migrator carries out: envtest runs none.
	NeedsStorageVersionMigrator = "storage-version-migrator"
	// NeedsPreviousRelease marks a scenario that deploys the release before this one, built from a
	// worktree of this repository's history, and replaces it (scenarios/upgrade): the local tier
	// runs each release's binary; kind would need the release before's image, which no tier builds
	// yet; envtest runs no release at all.
	NeedsPreviousRelease = "previous-release"
)

// SinceMinor is the first Kubernetes minor that has what a label needs, for the labels that only
// the newest minors serve: every tier leaves them out on an older one. 1.35 and 1.36 have the
// storage version migrator as a beta, off unless a cluster's administrator turns it on
// (docs/api-versions.md says how they migrate).
var SinceMinor = map[string]*version.Version{NeedsStorageVersionMigrator: version.MajorMinor(1, 37)}

// Tier is a place the scenarios run.
type Tier struct {
	// Name is how the catalogue and make test-first name it: "envtest", "e2e local", "e2e kind".
	Name string
	// Provider names what provides its cluster, in the map of providers a suite hands to
	// Provider: Envtest, ProviderLocal or ProviderKind.
	Provider string
	// Excludes are the labels of the scenarios it cannot run.
	Excludes []string
}

// All are the places the scenarios run, cheapest first.
var All = []Tier{
	{Name: "envtest", Provider: Envtest, Excludes: []string{NeedsGarbageCollector, NeedsKill, NeedsStorageVersionMigrator, NeedsPreviousRelease}},
	{Name: "e2e local", Provider: ProviderLocal, Excludes: []string{NeedsInProcessOperator}},
	{Name: "e2e kind", Provider: ProviderKind, Excludes: []string{NeedsInProcessOperator, NeedsPreviousRelease}},
}

// Current is the tier that $SCENARIOS_TIER (default envtest) and $E2E_PROVIDER (default local)
// name, on the minor $ENVTEST_K8S_VERSION names: it excludes too the labels that need a newer one.
func Current() (Tier, error) {
	tier, err := current()
	if err != nil || os.Getenv(MinorEnv) == "" {
		return tier, err
	}
	minor, err := version.ParseGeneric(os.Getenv(MinorEnv))
	if err != nil {
		return Tier{}, fmt.Errorf("%s=%q: %w", MinorEnv, os.Getenv(MinorEnv), err)
	}
	for _, label := range slices.Sorted(maps.Keys(SinceMinor)) {
		if minor.LessThan(SinceMinor[label]) && tier.Runs(label) {
			tier.Excludes = append(slices.Clone(tier.Excludes), label)
		}
	}
	return tier, nil
}

// current is the tier that $SCENARIOS_TIER and $E2E_PROVIDER name, whatever the minor.
func current() (Tier, error) {
	provider := Envtest
	switch tier := os.Getenv(Env); tier {
	case "", Envtest:
	case E2E:
		provider = cmp.Or(os.Getenv(ProviderEnv), ProviderLocal)
	default:
		return Tier{}, fmt.Errorf("%s=%q: want %s or %s", Env, tier, Envtest, E2E)
	}
	if i := slices.IndexFunc(All, func(t Tier) bool { return t.Provider == provider }); i >= 0 {
		return All[i], nil
	}
	return Tier{}, fmt.Errorf("%s=%q: want %s or %s", ProviderEnv, provider, ProviderLocal, ProviderKind)
}

// Runs says whether the tier runs a scenario with these labels.
func (t Tier) Runs(labels ...string) bool {
	return !slices.ContainsFunc(t.Excludes, func(l string) bool { return slices.Contains(labels, l) })
}

// LabelFilter adds to filter (Ginkgo's --label-filter, maybe empty) the exclusions of the tier.
func (t Tier) LabelFilter(filter string) string {
	exclude := "!" + strings.Join(t.Excludes, " && !")
	switch {
	case len(t.Excludes) == 0:
		return filter
	case filter == "":
		return exclude
	}
	return "(" + filter + ") && " + exclude
}

// Provider is the cluster.Provider of the current tier, from providers, by the tier's Provider
// name.
func Provider(providers map[string]cluster.Provider) cluster.Provider {
	return func(ctx context.Context, subject operator.Subject) (*cluster.Cluster, []byte, error) {
		tier, err := Current()
		if err != nil {
			return nil, nil, err
		}
		start, ok := providers[tier.Provider]
		if !ok {
			return nil, nil, fmt.Errorf("this suite has no provider for the %s tier", tier.Provider)
		}
		return start(ctx, subject)
	}
}
