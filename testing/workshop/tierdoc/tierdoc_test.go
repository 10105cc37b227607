package tierdoc

import (
	"strings"
	"testing"

	"example.com/operator-demo/testing/e2e/tiers"
)

// TestEachTiersEnvironmentSelectsIt: a run that sets a tier's Environment runs on that tier.
func TestEachTiersEnvironmentSelectsIt(t *testing.T) {
	if len(All) != len(tiers.All) {
		t.Fatalf("%d tiers described, tiers.All has %d", len(All), len(tiers.All))
	}
	for _, tier := range All {
		t.Setenv(tiers.Env, "")
		t.Setenv(tiers.ProviderEnv, "")
		for _, v := range tier.Environment() {
			name, value, _ := strings.Cut(v, "=")
			t.Setenv(name, value)
		}
		if got, err := tiers.Current(); err != nil || got.Provider != tier.Provider {
			t.Errorf("with %v the scenarios run on %q (%v), want %q", tier.Environment(), got.Provider, err, tier.Name)
		}
	}
}
