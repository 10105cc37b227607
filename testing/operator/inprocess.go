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

	"example.com/operator-demo/controllers"
)

// InProcess runs the Sample controller in this process, in a manager of its own that sees only
// namespace, configured by opts: the envtest tier's operator. It is cmd/'s manager and controller
// minus the metrics server, probes and leader election; its client limits are cfg's. Its counters
// are this process's (controller-runtime's registry), read without a scrape.
func InProcess(cfg *rest.Config, namespace string, opts controllers.Options) (*Operator, error) {
	var stop func() error
	op := &Operator{
		metrics: crmetrics.Registry.Gather,
		up: func() error {
			started, err := startManager(cfg, namespace, opts)
			stop = started
			return err
		},
		down: func() error { return stop() },
		kill: func() error {
			return errors.New("the operator runs in this process: it can be stopped, not killed; a scenario that kills it needs the local e2e tier")
		},
		logs: func() []string { return nil },
	}
	return op, op.Up()
}

// startManager starts a manager and returns a func that stops it and waits until it has stopped.
func startManager(cfg *rest.Config, namespace string, opts controllers.Options) (func() error, error) {
	mgr, err := ctrl.NewManager(cfg, controllers.ManagerOptions(ctrl.Options{
		Scheme:                 controllers.NewScheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		// One manager per spec, in one process: the controller's name repeats by design.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}))
	if err != nil {
		return nil, fmt.Errorf("new manager for namespace %s: %w", namespace, err)
	}
	if err := controllers.SetupWithManager(mgr, opts); err != nil {
		return nil, fmt.Errorf("set up the Sample controller for namespace %s: %w", namespace, err)
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
