package operator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"example.com/operator-demo/testing/harness/cachelag"
	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/poll"
)

// copyLabel marks the ConfigMaps the copier copies; its manager's cache holds only those.
const copyLabel = "example.org/copy"

// copier is a toy operator: for each ConfigMap labelled copyLabel it creates its copy, called
// <name>-copy; it records every request it reconciles, and counts its setups and its stops (each
// once a last API read on the way out is done).
type copier struct {
	mu            sync.Mutex
	seen          []string
	setups, stops int
}

func (o *copier) count(n *int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	*n++
}

func (o *copier) counts() (setups, stops int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.setups, o.stops
}

func (o *copier) reconciled() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.seen)
}

// subject is the copier as a suite describes it, its manager's cache narrowed by its ManagerOptions.
func (o *copier) subject(scheme *runtime.Scheme) Subject {
	return Subject{Scheme: scheme, Setup: o.setup, ManagerOptions: func(options ctrl.Options) ctrl.Options {
		options.Cache.ByObject = map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Label: labels.SelectorFromSet(labels.Set{copyLabel: "yes"})}}
		return options
	}}
}

func (o *copier) setup(mgr ctrl.Manager, _ Settings) error {
	o.count(&o.setups)
	if mgr.GetScheme() == clientgoscheme.Scheme {
		return errors.New("the manager's scheme is client-go's, not the Subject's")
	}
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		defer o.count(&o.stops)
		return mgr.GetAPIReader().List(context.Background(), &corev1.NamespaceList{})
	})); err != nil {
		return err
	}
	c := mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).Named("copier").For(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}). // in the order the cache saw them
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			o.mu.Lock()
			o.seen = append(o.seen, req.String())
			o.mu.Unlock()
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, req.NamespacedName, cm); err != nil || strings.HasSuffix(req.Name, "-copy") {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			copied := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: req.Name + "-copy", Namespace: req.Namespace, Labels: cm.Labels}, Data: cm.Data}
			return reconcile.Result{}, client.IgnoreAlreadyExists(c.Create(ctx, copied))
		}))
}

// TestInProcess runs a toy operator in this process on the harness's control plane, as a spec's
// operator runs on the envtest tier.
func TestInProcess(t *testing.T) { //nolint:gocyclo // one t.Run a behaviour, on the one control plane it starts
	cp, err := controlplane.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("stop control plane: %v", err)
		}
	})
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	create := func(t *testing.T, objs ...client.Object) {
		t.Helper()
		for _, obj := range objs {
			if err := c.Create(ctx, obj); err != nil {
				t.Fatal(err)
			}
		}
	}
	configMap := func(namespace, name string, labelled bool) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Data: map[string]string{"k": "v"}}
		if labelled {
			cm.Labels = map[string]string{copyLabel: "yes"}
		}
		return cm
	}
	namespace := func(name string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	// copied waits until namespace/name's copy exists.
	copied := func(t *testing.T, namespace, name string) {
		t.Helper()
		if err := poll.Until(ctx, 20*time.Millisecond, 10*time.Second, func(ctx context.Context) error {
			return c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name + "-copy"}, &corev1.ConfigMap{})
		}); err != nil {
			t.Fatalf("no copy of %s/%s: %v", namespace, name, err)
		}
	}
	toy := &copier{}
	var op *Operator

	// The cache lists what is there when the operator starts in key order, and its one worker
	// reconciles in that order: once b-spec/orig is copied, whatever it would also see is seen.
	t.Run("it runs the subject's controllers on its namespace and its cache's objects alone, its writes counted", func(t *testing.T) {
		create(t, namespace("a-elsewhere"), namespace("b-spec"),
			configMap("a-elsewhere", "orig", true), configMap("b-spec", "a-unlabelled", false), configMap("b-spec", "orig", true))
		if op, err = InProcess(cp.Config, "b-spec", toy.subject(scheme), Changes{}); err != nil {
			t.Fatal(err)
		}
		copied(t, "b-spec", "orig")
		// controller-runtime counts a reconcile once Reconcile has returned, after the toy records it:
		// both are read until both show the two reconciles.
		var got Reading
		if err := poll.Until(ctx, 20*time.Millisecond, 10*time.Second, func(context.Context) error {
			if seen := toy.reconciled(); !slices.Equal(seen, []string{"b-spec/orig", "b-spec/orig-copy"}) {
				return errors.New("reconciled " + strings.Join(seen, ", ") + "; want b-spec/orig, b-spec/orig-copy")
			}
			var err error
			if got, err = op.Read(); err == nil && got.Reconciles < 2 {
				return fmt.Errorf("%v reconciles counted", got.Reconciles)
			}
			return err
		}); err != nil {
			t.Error(err)
		}
		if got.Reconciles != 2 || got.ByController["copier"] != 2 || got.Writes != 1 || got.ByResource["configmaps"] != 1 {
			t.Errorf("Read = %+v; want 2 reconciles of the copier, 1 write of a ConfigMap", got)
		}
	})

	t.Run("Down waits until it has stopped; it starts again; it cannot be killed", func(t *testing.T) {
		if err := op.Down(); err != nil {
			t.Fatalf("Down: %v", err)
		}
		if _, stops := toy.counts(); stops != 1 {
			t.Errorf("Down returned with %d stops done, want 1", stops)
		}
		if err := op.Up(); err != nil {
			t.Fatalf("Up once down: %v", err)
		}
		create(t, configMap("b-spec", "again", true))
		copied(t, "b-spec", "again")
		if err := op.Kill(); err == nil || !strings.Contains(err.Error(), "it can be stopped, not killed") {
			t.Errorf("Kill = %v, want an error saying it can be stopped, not killed", err)
		}
		if setups, stops := toy.counts(); setups != 2 || stops != 2 {
			t.Errorf("the subject's Setup ran %d times, its manager stopped %d times, for 2 starts and a Kill", setups, stops)
		}
	})

	t.Run("a spec's changes replace its Setup and its client configuration, and give their settings", func(t *testing.T) {
		limit := NewSetting(10)
		var requests atomic.Int64
		got := make(chan int, 1)
		changes := Changes{
			Setup: func(mgr ctrl.Manager, s Settings) error {
				got <- limit.In(s)
				return toy.setup(mgr, s)
			},
			Settings: Settings{limit: 3},
			ClientConfig: func(cfg *rest.Config) *rest.Config {
				cfg = rest.CopyConfig(cfg)
				cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
					return promhttp.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
						requests.Add(1)
						return rt.RoundTrip(req)
					})
				})
				return cfg
			},
		}
		create(t, namespace("c-changed"))
		changed, err := InProcess(cp.Config, "c-changed", Subject{Scheme: scheme}, changes)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = changed.Down() })
		if setting := <-got; setting != 3 {
			t.Errorf("the spec's Setup read the setting as %d, want 3", setting)
		}
		// Its cache may have synced before its controller watched anything: a copy is a request.
		create(t, configMap("c-changed", "made", true))
		copied(t, "c-changed", "made")
		if requests.Load() == 0 {
			t.Error("no request of its manager went through the spec's client configuration")
		}
	})

	t.Run("Up returns once its cache has synced the Subject's Kind and Owned, which its controllers start on", func(t *testing.T) {
		var mgr ctrl.Manager
		subject := toy.subject(scheme)
		subject.Kind, subject.Owned, subject.Controller = &corev1.ConfigMap{}, []client.Object{&corev1.Secret{}}, "copier"
		subject.Setup = func(m ctrl.Manager, s Settings) error {
			mgr = m
			return toy.setup(m, s)
		}
		// Its cache lags (package cachelag): a controller that makes its informers as it starts
		// syncs them long after its metrics, which outlive its manager in this process, reported it.
		create(t, namespace("e-synced"))
		synced, err := InProcess(cp.Config, "e-synced", subject, Changes{ClientConfig: cachelag.Of(300 * time.Millisecond)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = synced.Down() })
		for start := range 2 { // the second once its metrics live on
			for _, obj := range []client.Object{subject.Kind, subject.Owned[0]} {
				informer, err := mgr.GetCache().GetInformer(ctx, obj, cache.BlockUntilSynced(false))
				if err != nil || !informer.HasSynced() {
					t.Errorf("start %d: its informer of %T has not synced as Up returns (%v)", start+1, obj, err)
				}
			}
			if err := synced.Down(); err != nil {
				t.Fatal(err)
			}
			if err := synced.Up(); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("StartManager returns once its cache has synced and its ready check passes; a check that fails for good fails it at once", func(t *testing.T) {
		var informer cache.Informer
		checks := 0
		ready := func(*http.Request) error {
			if checks++; !informer.HasSynced() {
				return poll.Stop(errors.New("ready checked before the cache synced"))
			}
			if checks < 3 {
				return errors.New("not yet")
			}
			return nil
		}
		stop, err := StartManager(cp.Config, ctrl.Options{Scheme: scheme}, func(mgr ctrl.Manager) (err error) {
			informer, err = mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{})
			return err
		}, ready)
		if err != nil {
			t.Fatal(err)
		}
		if err := stop(); err != nil || checks != 3 {
			t.Errorf("stop: %v, after %d ready checks; want 3 (2 not yet)", err, checks)
		}
		never := func(*http.Request) error { return poll.Stop(errors.New("it will never serve")) }
		if _, err := StartManager(cp.Config, ctrl.Options{Scheme: scheme}, func(ctrl.Manager) error { return nil }, never); err == nil || !strings.Contains(err.Error(), "it will never serve") {
			t.Errorf("StartManager with a ready check that fails for good = %v, want its error", err)
		}
	})

	t.Run("a manager that cannot be made or set up is an error naming the namespace", func(t *testing.T) {
		failing := Changes{Setup: func(ctrl.Manager, Settings) error { return errors.New("no such kind") }}
		if _, err := InProcess(cp.Config, "d-failing", Subject{Scheme: scheme}, failing); err == nil ||
			!strings.Contains(err.Error(), "the operator for namespace d-failing: set up its manager: no such kind") {
			t.Errorf("InProcess = %v, want an error naming d-failing and the Setup's error", err)
		}
		unknown := toy.subject(scheme)
		unknown.Kind, unknown.Controller = &unregistered{}, "copier"
		if op, err := InProcess(cp.Config, "d-failing", unknown, Changes{}); err == nil {
			t.Errorf("InProcess of a Subject whose Kind its Scheme does not know started it (Down: %v)", op.Down())
		} else if !strings.Contains(err.Error(), "the operator for namespace d-failing: set up its manager: watch the *operator.unregistered it reconciles or owns: ") {
			t.Errorf("InProcess of a Subject whose Kind its Scheme does not know = %v, want an error naming the Kind", err)
		}
		leading := toy.subject(scheme)
		leading.ManagerOptions = func(options ctrl.Options) ctrl.Options {
			options.LeaderElection, options.LeaderElectionID = true, "copier"
			return options
		}
		if _, err := InProcess(cp.Config, "d-failing", leading, Changes{}); err == nil || !strings.Contains(err.Error(), "new manager: ") {
			t.Errorf("InProcess with leader election and no namespace for its Lease = %v, want new manager's error", err)
		}
	})
}

// unregistered is a kind no Scheme knows.
type unregistered struct{ corev1.ConfigMap }

// TestAManagerThatStopsAsItStartsIsAnError: a manager whose runnable fails at its start stops
// before the operator is ready; StartManager says so, with the runnable's error, at once rather
// than after its 30 s wait for a readiness that cannot come.
func TestAManagerThatStopsAsItStartsIsAnError(t *testing.T) {
	failing := errors.New("the webhook server cannot listen")
	started := make(chan error, 1)
	go func() {
		stop, err := StartManager(&rest.Config{Host: "127.0.0.1:1"}, ctrl.Options{},
			func(mgr ctrl.Manager) error {
				return mgr.Add(manager.RunnableFunc(func(context.Context) error { return failing }))
			},
			func(*http.Request) error { return errors.New("not ready") })
		if err == nil {
			err = errors.Join(errors.New("StartManager returned no error"), stop())
		}
		started <- err
	}()
	select {
	case err := <-started:
		if !errors.Is(err, failing) || !strings.Contains(err.Error(), "its manager stopped") {
			t.Errorf("StartManager = %v, want an error saying its manager stopped, wrapping %q", err, failing)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("StartManager has not returned within 10 s of its manager's stop")
	}
}

// TestASubjectThatRegistersNoControllerFailsAtStart: an operator whose Setup registers no
// controller with its manager (nothing, or a runnable that is no controller) fails to start at
// once, saying so: not a minute later with no metrics to read (nor, where another operator's
// have been read in the process, never).
func TestASubjectThatRegistersNoControllerFailsAtStart(t *testing.T) {
	for name, setup := range map[string]Setup{
		"nothing": func(ctrl.Manager, Settings) error { return nil },
		"a runnable": func(mgr ctrl.Manager, _ Settings) error {
			return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { <-ctx.Done(); return nil }))
		},
	} {
		started := make(chan error, 1)
		go func() {
			op, err := InProcess(&rest.Config{Host: "127.0.0.1:1"}, "spec-none", Subject{Scheme: runtime.NewScheme(), Setup: setup}, Changes{})
			if err == nil {
				err = errors.Join(errors.New("InProcess returned no error"), op.Down())
			}
			started <- err
		}()
		select {
		case err := <-started:
			if !strings.Contains(err.Error(), "the operator for namespace spec-none: ") || !strings.Contains(err.Error(), "its Setup registered no controller with its manager") {
				t.Errorf("InProcess of a setup that registers %s = %v, want an error saying it registered no controller", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("InProcess of a setup that registers %s has not returned within 10 s", name)
		}
	}
}

// refusing is a manager that refuses every runnable added to it, with err.
type refusing struct {
	ctrl.Manager
	err error
}

func (r refusing) Add(manager.Runnable) error { return r.err }

// aController is a runnable that is a controller, of whatever requests, as the harness tells.
type aController struct{ manager.RunnableFunc }

func (aController) GetLogger() logr.Logger { return logr.Discard() }

// TestControllersOfCountsTheControllersAdded: what a setup adds to the manager is counted if it
// is a controller, and the manager's answer is passed on.
func TestControllersOfCountsTheControllersAdded(t *testing.T) {
	refused := errors.New("the manager has stopped")
	counted := &controllersOf{Manager: refusing{err: refused}}
	if err := counted.Add(aController{}); !errors.Is(err, refused) {
		t.Errorf("Add = %v, want the manager's %v", err, refused)
	}
	if err := errors.Join(counted.Add(manager.RunnableFunc(nil)), counted.Add(aController{})); counted.controllers != 2 || err == nil {
		t.Errorf("%d controllers counted of 2, among 3 runnables added (%v)", counted.controllers, err)
	}
}
