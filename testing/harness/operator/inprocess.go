package operator

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Changes change how a spec's operator runs. Only an operator in the test process takes them.
type Changes struct {
	// Setup registers other controllers than the subject's own: a stage of a walkthrough, say.
	Setup Setup
	// Settings are what the spec set, for the Subject's Setup to read.
	Settings Settings
	// ClientConfig changes the client configuration its manager connects with: a slower network,
	// say (package cachelag).
	ClientConfig func(*rest.Config) *rest.Config
}

// Zero says whether c changes nothing.
func (c Changes) Zero() bool { return c.Setup == nil && len(c.Settings) == 0 && c.ClientConfig == nil }

// InProcess runs subject's controllers, as changes change them, in a manager in this process that
// sees only namespace: cmd/'s manager (subject.ManagerOptions) without the metrics server, probes
// and leader election. Its reconciles are read from controller-runtime's registry, its API writes
// counted on the way out of every client built from its manager's configuration.
func InProcess(cfg *rest.Config, namespace string, subject Subject, changes Changes) (*Operator, error) {
	setup := subject.Setup
	if changes.Setup != nil {
		setup = changes.Setup
	}
	if changes.ClientConfig != nil {
		cfg = changes.ClientConfig(cfg)
	}
	writes := &Writes{}
	cfg = writes.Counted(cfg)
	var stop func() error
	op := New(subject, Controls{
		Metrics: crmetrics.Registry.Gather,
		Writes:  func() (map[string]float64, error) { return writes.ByResource(), nil },
		Start: func() error {
			started, err := startManager(cfg, namespace, subject, setup, changes.Settings)
			stop = started
			return err
		},
		Stop: func() error { return stop() },
		Kill: func() error {
			return errors.New("the operator runs in this process: it can be stopped, not killed; a scenario that kills it needs an e2e tier")
		},
	})
	return op, op.Up()
}

// startManager starts a manager and returns a func that stops it and waits until it has stopped.
func startManager(cfg *rest.Config, namespace string, subject Subject, setup Setup, settings Settings) (func() error, error) {
	options := ctrl.Options{
		Scheme:                 subject.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		// One manager per spec, in one process: the controller's name repeats by design.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if subject.ManagerOptions != nil {
		options = subject.ManagerOptions(options)
	}
	mgr, err := ctrl.NewManager(cfg, options)
	if err != nil {
		return nil, fmt.Errorf("new manager for namespace %s: %w", namespace, err)
	}
	if settings == nil {
		settings = Settings{}
	}
	if err := setup(mgr, settings); err != nil {
		return nil, fmt.Errorf("set up the controllers for namespace %s: %w", namespace, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		cancel()
		return nil, errors.Join(fmt.Errorf("manager for namespace %s: cache did not sync", namespace), <-done)
	}
	return func() error {
		cancel()
		return <-done
	}, nil
}
