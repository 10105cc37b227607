package tiers

import (
	"context"
	"testing"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/operator"
)

func TestLabelFilterLeavesOutWhatTheTierCannotRun(t *testing.T) {
	tests := []struct {
		tier, provider, minor, filter, want string
	}{
		{"", "", "", "", "!garbage-collector && !kill && !storage-version-migrator && !previous-release"},
		{"envtest", "", "1.37", "create || update", "(create || update) && !garbage-collector && !kill && !storage-version-migrator && !previous-release"},
		{"e2e", "", "", "", "!in-process"},
		{"e2e", "kind", "1.37", "gc", "(gc) && !in-process && !previous-release"},
		{"e2e", "kind", "1.36", "", "!in-process && !previous-release && !storage-version-migrator"},
		{"e2e", "local", "1.35", "", "!in-process && !storage-version-migrator"},
	}
	for _, tt := range tests {
		t.Setenv(Env, tt.tier)
		t.Setenv(ProviderEnv, tt.provider)
		t.Setenv(MinorEnv, tt.minor)
		tier, err := Current()
		if err != nil {
			t.Fatal(err)
		}
		if got := tier.LabelFilter(tt.filter); got != tt.want {
			t.Errorf("%s=%q %s=%q %s=%q: LabelFilter(%q) = %q, want %q", Env, tt.tier, ProviderEnv, tt.provider, MinorEnv, tt.minor, tt.filter, got, tt.want)
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

// TestAnUnknownTierIsAnError: a misspelt tier, provider or minor is said, not taken for the default.
func TestAnUnknownTierIsAnError(t *testing.T) {
	for _, env := range [][3]string{{"e2f", "", ""}, {E2E, "kinda", ""}, {E2E, "kind", "1.x"}} {
		t.Setenv(Env, env[0])
		t.Setenv(ProviderEnv, env[1])
		t.Setenv(MinorEnv, env[2])
		if tier, err := Current(); err == nil {
			t.Errorf("%s=%q %s=%q %s=%q: ran on %q, want an error", Env, env[0], ProviderEnv, env[1], MinorEnv, env[2], tier.Provider)
		}
	}
}

// TestProviderStartsTheCurrentTiersCluster: a suite hands over one provider for each tier; the
// current tier's starts its cluster, and a tier the suite has none for is an error, not envtest.
func TestProviderStartsTheCurrentTiersCluster(t *testing.T) {
	started := ""
	providers := map[string]cluster.Provider{}
	for _, name := range []string{Envtest, ProviderKind} {
		providers[name] = func(context.Context, operator.Subject) (*cluster.Cluster, []byte, error) {
			started = name
			return &cluster.Cluster{}, nil, nil
		}
	}
	t.Setenv(Env, E2E)
	t.Setenv(ProviderEnv, ProviderKind)
	if _, _, err := Provider(providers)(context.Background(), operator.Subject{}); err != nil || started != ProviderKind {
		t.Errorf("on the kind tier: started %q, %v; want the kind provider's cluster", started, err)
	}
	t.Setenv(ProviderEnv, ProviderLocal)
	if _, _, err := Provider(providers)(context.Background(), operator.Subject{}); err == nil {
		t.Error("on the local tier, with no provider for it: no error")
	}
}
