package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/controllers"
	"example.com/operator-demo/testing/controlplane"
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

// Start starts (or, for kind, connects to) the cluster that $SCENARIOS_TIER names, for every
// test process of a suite to share. It returns the cluster, and what another process passes to
// Attach to use it too. Call it in one process (Ginkgo's SynchronizedBeforeSuite).
func Start(ctx context.Context) (Cluster, []byte, error) {
	switch tier := os.Getenv(TierEnv); tier {
	case "", "envtest":
		return startEnvtestCluster()
	case "e2e":
		// One operator serves every namespace, and its counters with it: the e2e tier runs in
		// one process, which keeps the cluster it started.
		c, err := connectE2E(ctx)
		return c, nil, err
	default:
		return nil, nil, fmt.Errorf("%s=%q: want envtest or e2e", TierEnv, tier)
	}
}

// Attach returns the cluster that another process started, from what Start returned there.
func Attach(attachment []byte) (Cluster, error) {
	if attachment == nil {
		return nil, errors.New("the e2e tier runs in one test process: run it without -p / --procs")
	}
	var a envtestAttachment
	if err := json.Unmarshal(attachment, &a); err != nil {
		return nil, fmt.Errorf("attach to the shared control plane: %w", err)
	}
	cfg := &rest.Config{Host: a.Host, TLSClientConfig: rest.TLSClientConfig{CAData: a.CA, CertData: a.Cert, KeyData: a.Key}, QPS: a.QPS, Burst: a.Burst}
	return newEnvtestCluster(cfg, func() error { return nil })
}

// envtestAttachment is how another process reaches the shared envtest control plane.
type envtestAttachment struct {
	Host          string
	CA, Cert, Key []byte
	QPS           float32
	Burst         int
}

// envtestCluster is the envtest tier: a control plane (this process's, or shared by another) and
// one in-process operator per namespace.
type envtestCluster struct {
	config *rest.Config
	client client.Client
	stop   func() error
}

func startEnvtestCluster() (*envtestCluster, []byte, error) {
	cp, err := controlplane.Start("")
	if err != nil {
		return nil, nil, err
	}
	cfg := cp.Config
	attachment, err := json.Marshal(envtestAttachment{Host: cfg.Host, CA: cfg.CAData, Cert: cfg.CertData, Key: cfg.KeyData, QPS: cfg.QPS, Burst: cfg.Burst})
	if err != nil {
		return nil, nil, errors.Join(err, cp.Stop())
	}
	e, err := newEnvtestCluster(cfg, cp.Stop)
	if err != nil {
		return nil, nil, errors.Join(err, cp.Stop())
	}
	return e, attachment, nil
}

func newEnvtestCluster(cfg *rest.Config, stop func() error) (*envtestCluster, error) {
	c, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return &envtestCluster{config: cfg, client: c, stop: stop}, nil
}

func (e *envtestCluster) Client() client.Client { return e.client }

func (e *envtestCluster) RunOperator(namespace string, wiring controllers.Wiring) (*Operator, error) {
	return StartOperator(e.config, namespace, controllers.Options{Wiring: wiring})
}

func (e *envtestCluster) Stop() error { return e.stop() }

// Labels that say what a scenario needs beyond an API server. Each tier leaves out, by label
// filter, the scenarios it cannot run (see LabelFilter): none is skipped inside its body.
const (
	// NeedsInProcessOperator marks a scenario that wires the operator itself (WithoutConfigMapWatch):
	// only the envtest tier runs the operator in the test process.
	NeedsInProcessOperator = "in-process"
	// NeedsOperatorProcess marks a scenario that stops and starts the operator: the envtest tier
	// (its in-process manager) and the e2e tier's local provider (its process) can; the kind
	// provider, whose operator is reached through a port-forward, does not.
	NeedsOperatorProcess = "operator-process"
	// NeedsKill marks a scenario that kills the operator with kill -9: only the e2e tier's local
	// provider runs it as a process of the suite's own.
	NeedsKill = "kill"
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
	{Name: "envtest", Excludes: []string{NeedsGarbageCollector, NeedsKill}},
	{Name: "e2e local", Excludes: []string{NeedsInProcessOperator}},
	{Name: "e2e kind", Excludes: []string{NeedsInProcessOperator, NeedsOperatorProcess, NeedsKill}},
}

// CurrentTier is the tier that $SCENARIOS_TIER and $E2E_PROVIDER name.
func CurrentTier() Tier {
	switch {
	case os.Getenv(TierEnv) != "e2e":
		return Tiers[0]
	case os.Getenv(ProviderEnv) == ProviderKind:
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
