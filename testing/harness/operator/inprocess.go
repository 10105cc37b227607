package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"example.com/operator-demo/testing/harness/poll"
)

// InProcess runs subject's controllers, as changes change them, in a manager in this process that
// sees only namespace: cmd/'s manager (subject.ManagerOptions) without its metrics server, probes
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
	options := ctrl.Options{
		Scheme: subject.Scheme,
		Cache:  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		// One manager per spec, in one process: the controller's name repeats by design.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if subject.ManagerOptions != nil {
		options = subject.ManagerOptions(options)
	}
	var stop func() error
	op := New(subject, Controls{
		Metrics: crmetrics.Registry.Gather,
		Writes:  func() (map[string]float64, error) { return writes.ByResource(), nil },
		Start: func() (err error) {
			stop, err = StartManager(cfg, options, func(mgr ctrl.Manager) error { return setup(mgr, changes.Settings) }, cacheSynced)
			if err != nil {
				return fmt.Errorf("the operator for namespace %s: %w", namespace, err)
			}
			return nil
		},
		Stop: func() error { return stop() },
		Kill: func() error {
			return errors.New("the operator runs in this process: it can be stopped, not killed; a scenario that kills it needs an e2e tier")
		},
	})
	return op, op.Up()
}

// StartManager starts a manager of the harness's own, with options and no metrics server (what its
// controllers count is read from controller-runtime's registry), set up by setup; it returns once
// ready says so, with a func that stops the manager and waits until it has stopped.
func StartManager(cfg *rest.Config, options ctrl.Options, setup func(ctrl.Manager) error, ready func(context.Context, ctrl.Manager) error) (stop func() error, err error) {
	options.Metrics = metricsserver.Options{BindAddress: "0"}
	mgr, err := ctrl.NewManager(cfg, options)
	if err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	if err := setup(mgr); err != nil {
		return nil, fmt.Errorf("set up its manager: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stop = func() error {
		cancel()
		return <-done
	}
	if err := poll.Until(ctx, 50*time.Millisecond, 30*time.Second, func(ctx context.Context) error {
		select {
		case err := <-done:
			done <- err
			return poll.Stop(fmt.Errorf("its manager stopped: %w", err))
		default:
			return ready(ctx, mgr)
		}
	}); err != nil {
		return nil, errors.Join(err, stop())
	}
	return stop, nil
}

// cacheSynced is ready once mgr's cache has synced.
func cacheSynced(ctx context.Context, mgr ctrl.Manager) error {
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return errors.New("its cache has not synced")
	}
	return nil
}
