package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/controllers"
)

// TierEnv names the environment variable that chooses where the scenarios run: "envtest" (the
// default) or "e2e".
const TierEnv = "SCENARIOS_TIER"

// Cluster is where the scenarios run.
type Cluster interface {
	// Client reads and writes straight to the API server, with no cache in between: what a
	// scenario reads is what the server holds.
	Client() client.Client
	// RunOperator makes sure an operator wired as wiring reconciles namespace, and returns it.
	RunOperator(namespace string, wiring controllers.Wiring) (*Operator, error)
	// Stop releases the cluster.
	Stop() error
}

// Connect returns the cluster that $SCENARIOS_TIER names.
func Connect(ctx context.Context) (Cluster, error) {
	switch tier := os.Getenv(TierEnv); tier {
	case "", "envtest":
		return startEnvtestCluster()
	case "e2e":
		return connectE2E(ctx)
	default:
		return nil, fmt.Errorf("%s=%q: want envtest or e2e", TierEnv, tier)
	}
}

// envtestCluster is the envtest tier: a control plane of this process's own, and one in-process
// operator per namespace.
type envtestCluster struct {
	cp     *ControlPlane
	client client.Client
}

func startEnvtestCluster() (*envtestCluster, error) {
	cp, err := StartControlPlane("")
	if err != nil {
		return nil, err
	}
	c, err := client.New(cp.Config, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("client for envtest: %w", err), cp.Stop())
	}
	return &envtestCluster{cp: cp, client: c}, nil
}

func (e *envtestCluster) Client() client.Client { return e.client }

func (e *envtestCluster) RunOperator(namespace string, wiring controllers.Wiring) (*Operator, error) {
	return StartOperator(e.cp.Config, namespace, wiring)
}

func (e *envtestCluster) Stop() error { return e.cp.Stop() }

// Labels that say what a scenario needs beyond an API server. Each tier leaves out, by label
// filter, the scenarios it cannot run (see LabelFilter): none is skipped inside its body.
const (
	// NeedsInProcessOperator marks a scenario that wires the operator itself (WithoutConfigMapWatch):
	// only the envtest tier runs the operator in the test process.
	NeedsInProcessOperator = "in-process"
	// NeedsOperatorProcess marks a scenario that stops, kills or restarts the operator process: the
	// envtest tier and the e2e tier's local provider can, kind's port-forwarded operator cannot.
	NeedsOperatorProcess = "operator-process"
	// NeedsGarbageCollector marks a scenario that watches the garbage collector delete a
	// dependent: envtest runs no kube-controller-manager, the e2e tier does.
	NeedsGarbageCollector = "garbage-collector"
)

// Tier is a place the scenarios run, with the labels of the scenarios it cannot run.
type Tier struct {
	Name     string
	Excludes []string
}

// Tiers are the places the scenarios run, cheapest first.
var Tiers = []Tier{
	{Name: "envtest", Excludes: []string{NeedsGarbageCollector}},
	{Name: "e2e local", Excludes: []string{NeedsInProcessOperator}},
	{Name: "e2e kind", Excludes: []string{NeedsInProcessOperator, NeedsOperatorProcess}},
}

// CurrentTier is the tier that $SCENARIOS_TIER and $E2E_PROVIDER name.
func CurrentTier() Tier {
	switch {
	case os.Getenv(TierEnv) != "e2e":
		return Tiers[0]
	case os.Getenv(ProviderEnv) == "kind":
		return Tiers[2]
	default:
		return Tiers[1]
	}
}

// LabelFilter adds to filter (Ginkgo's --label-filter, maybe empty) the exclusions of the
// current tier.
func LabelFilter(filter string) string {
	tier := CurrentTier()
	excludes := make([]string, 0, len(tier.Excludes))
	for _, l := range tier.Excludes {
		excludes = append(excludes, "!"+l)
	}
	exclude := strings.Join(excludes, " && ")
	if filter == "" {
		return exclude
	}
	return "(" + filter + ") && " + exclude
}
