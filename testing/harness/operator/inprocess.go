package operator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"example.com/operator-demo/testing/harness/poll"
)

// InProcess runs subject's controllers, as changes change them, in a manager in this process that
// sees only namespace: cmd/'s manager (subject.ManagerOptions) without its metrics server, probes
// and leader election. Its reconciles are read from controller-runtime's registry, its API writes
// counted on the way out of every client built from its manager's configuration.
func InProcess(cfg *rest.Config, namespace string, subject Subject, changes Changes) (*Operator, error) {
	if changes.Setup == nil {
		changes.Setup = subject.Setup
	}
	if changes.ClientConfig != nil {
		cfg = changes.ClientConfig(cfg)
	}
	cfg, writes := CountWrites(cfg)
	var stop func() error
	op := New(subject, Controls{
		Metrics: crmetrics.Registry.Gather,
		Writes:  writes,
		Start: func() (err error) {
			// Options of its own for each start: a manager keeps what they point to (its client's
			// cache options, which it fills in with its cache).
			options := ctrl.Options{
				Scheme: subject.Scheme,
				Cache:  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
				// One manager per spec, in one process: the controller's name repeats by design.
				Controller: config.Controller{SkipNameValidation: ptr.To(true)},
			}
			if subject.ManagerOptions != nil {
				options = subject.ManagerOptions(options)
			}
			stop, err = StartManager(cfg, options, func(mgr ctrl.Manager) error {
				counted := &controllersOf{Manager: mgr}
				if err := changes.Setup(counted, changes.Settings); err != nil {
					return err
				}
				if counted.controllers == 0 {
					return errors.New("its Setup registered no controller with its manager: the Subject's Setup (or WithControllers') sets up the operator's controllers, as its cmd/ does")
				}
				return watched(mgr, subject)
			}, nil)
			if err != nil {
				return fmt.Errorf("the operator for namespace %s: %w", namespace, err)
			}
			return nil
		},
		Stop: func() error { return stop() },
		Kill: func() error { // stopped all the same: it reads as down, a spec's cleanup leaves it be
			return errors.Join(errors.New("the operator runs in this process: it can be stopped, not killed; a scenario that kills it needs an e2e tier"), stop())
		},
	})
	return op, op.Up()
}

// watched makes the manager's informers of the Subject's Kind and Owned before it starts, so that
// the cache sync StartManager waits for includes them. A controller makes its own only as it
// starts, and reports started at once in this process, where its metrics outlive every manager
// before it: without them, Up would return before the cache has listed what the spec's first wait
// reads.
func watched(mgr ctrl.Manager, subject Subject) error {
	for _, obj := range append([]client.Object{subject.Kind}, subject.Owned...) {
		if obj == nil {
			continue
		}
		if _, err := mgr.GetCache().GetInformer(context.Background(), obj); err != nil {
			return fmt.Errorf("watch the %T it reconciles or owns: %w", obj, err)
		}
	}
	return nil
}

// controllersOf is a manager that counts the controllers registered with it.
type controllersOf struct {
	ctrl.Manager
	controllers int
}

// Add adds r to the manager, counting it if it is a controller (of any request type).
func (m *controllersOf) Add(r manager.Runnable) error {
	if _, ok := r.(interface{ GetLogger() logr.Logger }); ok {
		m.controllers++
	}
	return m.Manager.Add(r)
}

// StartManager starts a manager of the harness's own, set up by setup, with options and no metrics
// server (controller-runtime's registry is read instead). It returns once its cache has synced and
// ready (if any) passes, with a func that stops the manager and waits until it has stopped.
func StartManager(cfg *rest.Config, options ctrl.Options, setup func(ctrl.Manager) error, ready healthz.Checker) (stop func() error, err error) {
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
		}
		switch {
		case !mgr.GetCache().WaitForCacheSync(ctx):
			return errors.New("its cache has not synced")
		case ready != nil:
			return ready(nil)
		}
		return nil
	}); err != nil {
		return nil, errors.Join(err, stop())
	}
	return stop, nil
}

// CountWrites is cfg with the API write requests through it, from any client built from it,
// counted, and what reads the count, by resource (with "/" and the subresource: "configmaps",
// "widgets/status"). Counted: every create, update, patch and delete that the API server took.
// Not counted: a write it refused (an error response) or never received, which changed nothing;
// events; leader election's Lease renewals (they go on at rest by design); the reviews of
// authentication.k8s.io and authorization.k8s.io (questions a metrics endpoint asks, nothing
// stored).
func CountWrites(cfg *rest.Config) (*rest.Config, func() (map[string]float64, error)) {
	var mu sync.Mutex
	byResource := map[string]float64{}
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return promhttp.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err != nil || resp.StatusCode >= http.StatusBadRequest {
				return resp, err
			}
			info, infoErr := requests.NewRequestInfo(req)
			resource := strings.TrimSuffix(info.Resource+"/"+info.Subresource, "/")
			if infoErr == nil && info.IsResourceRequest && writeVerbs.Has(info.Verb) && IsCounted(info.APIGroup, resource) {
				mu.Lock()
				defer mu.Unlock()
				byResource[resource]++
			}
			return resp, err
		})
	})
	return cfg, func() (map[string]float64, error) {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(byResource), nil
	}
}

// writeVerbs are the API server's verbs of a write.
var writeVerbs = sets.New("create", "update", "patch", "delete", "deletecollection")

// requests parses an API request as the API server does.
var requests = request.RequestInfoFactory{APIPrefixes: map[string]sets.Empty{"api": {}, "apis": {}}, GrouplessAPIPrefixes: map[string]sets.Empty{"api": {}}}

// IsCounted says whether a write of resource (with "/" and its subresource, if any) of API group
// counts as a write of the operator's (CountWrites).
func IsCounted(group, resource string) bool {
	base, _, _ := strings.Cut(resource, "/")
	switch {
	case base == "events", group == "coordination.k8s.io" && base == "leases",
		group == "authentication.k8s.io", group == "authorization.k8s.io":
		return false
	}
	return resource != ""
}
