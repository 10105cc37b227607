package harness

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"example.com/operator-demo/controllers"
)

// StartOperator runs the Sample controller in this process, in a manager of its own that sees
// only namespace, configured by opts. It is the envtest tier's operator: the same manager
// options and controller as cmd/, minus the metrics server, probes and leader election; its client
// limits are cfg's.
func StartOperator(cfg *rest.Config, namespace string, opts controllers.Options) (*Operator, error) {
	var stop func() error
	op := &Operator{
		metrics: metrics.Registry.Gather,
		up: func() error {
			started, err := startManager(cfg, namespace, opts)
			if err != nil {
				return err
			}
			stop = started
			return nil
		},
		down: func() error { return stop() },
		kill: func() error {
			return errors.New("the envtest tier runs the operator in this process: it cannot be killed, only stopped; label the scenario " + NeedsKill)
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
