package tiers

import "testing"

func TestLabelFilterLeavesOutWhatTheTierCannotRun(t *testing.T) {
	tests := []struct {
		tier, provider, filter, want string
	}{
		{"", "", "", "!garbage-collector && !kill"},
		{"envtest", "", "create || update", "(create || update) && !garbage-collector && !kill"},
		{"e2e", "", "", "!in-process"},
		{"e2e", "kind", "gc", "(gc) && !in-process"},
	}
	for _, tt := range tests {
		t.Setenv(Env, tt.tier)
		t.Setenv(ProviderEnv, tt.provider)
		tier, err := Current()
		if err != nil {
			t.Fatal(err)
		}
		if got := tier.LabelFilter(tt.filter); got != tt.want {
			t.Errorf("%s=%q %s=%q: LabelFilter(%q) = %q, want %q", Env, tt.tier, ProviderEnv, tt.provider, tt.filter, got, tt.want)
		}
	}
}

func TestRuns(t *testing.T) {
	if All[0].Runs("gc", NeedsGarbageCollector) {
		t.Error("envtest runs a scenario that needs a garbage collector")
	}
	if !All[1].Runs("gc", NeedsGarbageCollector) || !All[0].Runs("create") {
		t.Error("a tier leaves out a scenario it can run")
	}
}

// TestAnUnknownTierIsAnError: a misspelt tier or provider is said, not taken for the default.
func TestAnUnknownTierIsAnError(t *testing.T) {
	for _, env := range [][2]string{{"e2f", ""}, {E2E, "kinda"}} {
		t.Setenv(Env, env[0])
		t.Setenv(ProviderEnv, env[1])
		if tier, err := Current(); err == nil {
			t.Errorf("%s=%q %s=%q: ran on %q, want an error", Env, env[0], ProviderEnv, env[1], tier.Provider)
		}
	}
}
