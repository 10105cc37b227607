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

// Options change how a spec's operator runs. Only an operator in the test process takes them.
type Options struct {
	// Setup registers other controllers than the subject's own: a stage of a walkthrough, say.
	Setup Setup
	// ClientConfig changes the client configuration its manager connects with: a slower network,
	// say (package cachelag).
	ClientConfig func(*rest.Config) *rest.Config
}

// Zero says whether o changes nothing.
func (o Options) Zero() bool { return o.Setup == nil && o.ClientConfig == nil }

// InProcess runs subject's controllers, as opts change them, in this process, in a manager of its
// own that sees only namespace: the envtest tier's operator.
// It is cmd/'s manager (subject.ManagerOptions) minus the metrics server, probes and leader
// election; its client limits are cfg's. Its counters are this process's (controller-runtime's
// registry), read without a scrape.
func InProcess(cfg *rest.Config, namespace string, subject Subject, opts Options) (*Operator, error) {
	setup := subject.Setup
	if opts.Setup != nil {
		setup = opts.Setup
	}
	if opts.ClientConfig != nil {
		cfg = opts.ClientConfig(cfg)
	}
	var stop func() error
	op := New(subject, Controls{
		Metrics: crmetrics.Registry.Gather,
		Start: func() error {
			started, err := startManager(cfg, namespace, subject, setup)
			stop = started
			return err
		},
		Stop: func() error { return stop() },
		Kill: func() error {
			return errors.New("the operator runs in this process: it can be stopped, not killed; a scenario that kills it needs the local e2e tier")
		},
		Logs: func() []string { return nil },
	})
	return op, op.Up()
}

// startManager starts a manager and returns a func that stops it and waits until it has stopped.
func startManager(cfg *rest.Config, namespace string, subject Subject, setup Setup) (func() error, error) {
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
	if err := setup(mgr); err != nil {
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
