// Package tierdoc is what this repository's tools say of each tier of tiers.All (testing/e2e/tiers):
// the name the catalogue and make test-first give it, and the environment a run of the scenarios
// sets to run there.
package tierdoc

import "example.com/operator-demo/testing/e2e/tiers"

// Tier is a tier of tiers.All, named.
type Tier struct {
	tiers.Tier
	// Name is how the catalogue names it: "envtest", "e2e local", "e2e kind".
	Name string
}

// All are tiers.All, cheapest first, named; docs/testing.md says what each runs on and proves.
var All = []Tier{{tiers.All[0], "envtest"}, {tiers.All[1], "e2e local"}, {tiers.All[2], "e2e kind"}}

// Environment is what a run of the scenarios sets to run on t.
func (t Tier) Environment() []string {
	if t.Provider == tiers.Envtest {
		return []string{tiers.Env + "=" + tiers.Envtest}
	}
	return []string{tiers.Env + "=" + tiers.E2E, tiers.ProviderEnv + "=" + t.Provider}
}
