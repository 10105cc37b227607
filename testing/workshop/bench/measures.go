package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/controllers"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/cluster"
	"example.com/operator-demo/testing/operator"
	"example.com/operator-demo/testing/poll"
)

// The operator's client limits in the in-process measurements: cmd/'s defaults.
const (
	operatorQPS   = 50
	operatorBurst = 100
)

// convergedOperator starts an operator (as cmd/ configures it) for a new namespace and waits
// until the n Samples it creates there have converged. The caller stops the operator.
func (e *env) convergedOperator(ctx context.Context, prefix string, n int) (string, *operator.Operator, error) {
	ns, err := e.namespace(ctx, prefix)
	if err != nil {
		return "", nil, err
	}
	op, err := operator.InProcess(limited(e.cp.Config, operatorQPS, operatorBurst), ns, samples.Operator, operator.Options{})
	if err != nil {
		return "", nil, err
	}
	err = e.createSamples(ctx, ns, n)
	if err == nil {
		err = e.waitConverged(ctx, ns, n, time.Minute)
	}
	if err != nil {
		return "", nil, errors.Join(err, op.Down())
	}
	return ns, op, nil
}

// writesAtRest: API writes per reconcile that finds nothing to do, and during 30 s at rest.
func writesAtRest(ctx context.Context, e *env) ([]result, error) {
	const n = 100
	ns, op, err := e.convergedOperator(ctx, "writes", n)
	if err != nil {
		return nil, err
	}
	defer func() { _ = op.Down() }()

	progress("writes: %d no-op reconciles (an unmanaged annotation on every ConfigMap)", n)
	before, err := op.Counts()
	if err != nil {
		return nil, err
	}
	var touches errgroup.Group
	touches.SetLimit(16)
	for i := range n {
		touches.Go(func() error {
			return samples.MergePatch(ctx, e.admin, &corev1.ConfigMap{}, ns, demov1alpha1.ConfigMapName(sampleName(i)), `{"metadata":{"annotations":{"bench/touched":"yes"}}}`)
		})
	}
	if err := touches.Wait(); err != nil {
		return nil, err
	}
	after, err := waitCounts(ctx, op, func(c operator.Counts) bool { return c.Reconciles >= before.Reconciles+n })
	if err != nil {
		return nil, err
	}
	reconciles, writes := after.Reconciles-before.Reconciles, after.Writes-before.Writes

	progress("writes: 30 s at rest with %d converged Samples", n)
	rest, err := op.Counts()
	if err != nil {
		return nil, err
	}
	if err := pause(ctx, 30*time.Second); err != nil {
		return nil, err
	}
	end, err := op.Counts()
	if err != nil {
		return nil, err
	}
	return []result{
		{
			measure: fmt.Sprintf("API writes per no-op reconcile (%d Samples, each reconciled after an unmanaged edit)", n),
			value:   fmt.Sprintf("%.2f (%.0f writes in %.0f reconciles)", writes/reconciles, writes, reconciles),
			goal:    "0", ok: writes == 0,
		},
		{
			measure: fmt.Sprintf("API writes during 30 s at rest, %d converged Samples", n),
			value:   fmt.Sprintf("%.0f (and %.0f reconciles)", end.Writes-rest.Writes, end.Reconciles-rest.Reconciles),
			goal:    "0", ok: end.Writes == rest.Writes,
		},
	}, nil
}

// waitCounts polls the operator's counters until done says so, for at most a minute.
func waitCounts(ctx context.Context, op *operator.Operator, done func(operator.Counts) bool) (operator.Counts, error) {
	var c operator.Counts
	err := poll.Until(ctx, 50*time.Millisecond, time.Minute, func(context.Context) error {
		var err error
		if c, err = op.Counts(); err == nil && !done(c) {
			err = fmt.Errorf("counters at %+v", c)
		}
		return err
	})
	return c, err
}

// throughput: n Samples exist and the operator starts; the time until all have converged,
// against a bare client doing the same writes (n ConfigMap creates and n status updates) with
// the same client limits and concurrency. Swept over the client limits and MaxConcurrentReconciles.
func throughput(ctx context.Context, e *env, n int) ([]result, error) {
	var out []result
	for _, limits := range []struct {
		qps   float32
		burst int
	}{{operatorQPS, operatorBurst}, {200, 400}} {
		for _, workers := range []int{1, 2, 4, 8} {
			r, err := throughputOnce(ctx, e, n, workers, limits.qps, limits.burst)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

func throughputOnce(ctx context.Context, e *env, n, workers int, qps float32, burst int) (result, error) {
	bare, err := bareClient(ctx, e, n, workers, qps, burst)
	if err != nil {
		return result{}, err
	}
	ns, err := e.namespace(ctx, "throughput")
	if err != nil {
		return result{}, err
	}
	if err := e.createSamples(ctx, ns, n); err != nil {
		return result{}, err
	}
	started := time.Now()
	op, err := operator.InProcess(limited(e.cp.Config, qps, burst), ns, samples.Operator, operator.Options{Setup: func(mgr ctrl.Manager, _ operator.Settings) error {
		r := controllers.NewSampleReconciler(mgr)
		r.MaxConcurrentReconciles = workers
		return r.SetupWithManager(mgr)
	}})
	if err != nil {
		return result{}, err
	}
	err = e.waitConverged(ctx, ns, n, 5*time.Minute)
	took := time.Since(started)
	counts, countErr := op.Counts()
	if err := errors.Join(err, countErr, op.Down()); err != nil {
		return result{}, err
	}
	ratio := took.Seconds() / bare.Seconds()
	progress("throughput: QPS %.0f/burst %d, %d workers: operator %s, bare client %s (%.2f×)", qps, burst, workers, took.Round(10*time.Millisecond), bare.Round(10*time.Millisecond), ratio)
	return result{
		measure: fmt.Sprintf("Throughput: %d Samples to Ready, QPS %.0f/burst %d, MaxConcurrentReconciles %d", n, qps, burst, workers),
		value: fmt.Sprintf("%s vs bare client %s: **%.2f×** (%.2f writes per Sample)", took.Round(10*time.Millisecond), bare.Round(10*time.Millisecond), ratio,
			counts.Writes/float64(n)),
		goal: "≤ 1.2×", ok: ratio <= 1.2,
	}, nil
}

// bareClient times a plain client, with the operator's limits and workers goroutines, making the
// writes the operator makes for n new Samples, built by the controller's own builders: create
// each ConfigMap, then patch each status.
func bareClient(ctx context.Context, e *env, n, workers int, qps float32, burst int) (time.Duration, error) {
	ns, err := e.namespace(ctx, "bare")
	if err != nil {
		return 0, err
	}
	if err := e.createSamples(ctx, ns, n); err != nil {
		return 0, err
	}
	list := &demov1alpha1.SampleList{}
	if err := e.admin.List(ctx, list, client.InNamespace(ns)); err != nil {
		return 0, err
	}
	c, err := cluster.NewClient(limited(e.cp.Config, qps, burst), samples.Operator.Scheme)
	if err != nil {
		return 0, err
	}
	started := time.Now()
	var g errgroup.Group
	g.SetLimit(workers)
	for i := range list.Items {
		s := &list.Items[i]
		g.Go(func() error {
			if err := c.Create(ctx, controllers.DesiredConfigMap(s)); err != nil {
				return err
			}
			before := s.DeepCopy()
			s.Status = controllers.DesiredStatus(s, nil, metav1.Now())
			return c.Status().Patch(ctx, s, client.MergeFrom(before))
		})
	}
	err = g.Wait()
	return time.Since(started), err
}

// latency: spec.message changed, then the time until a watch sees the ConfigMap hold it.
func latency(ctx context.Context, e *env) ([]result, error) {
	const changes = 200
	ns, op, err := e.convergedOperator(ctx, "latency", 1)
	if err != nil {
		return nil, err
	}
	defer func() { _ = op.Down() }()
	w, err := e.admin.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns))
	if err != nil {
		return nil, err
	}
	defer w.Stop()

	progress("latency: %d spec changes", changes)
	took := make([]time.Duration, 0, changes)
	for i := range changes {
		message := fmt.Sprintf("change %d", i)
		started := time.Now()
		if err := samples.MergePatch(ctx, e.admin, &demov1alpha1.Sample{}, ns, sampleName(0), `{"spec":{"message":"`+message+`"}}`); err != nil {
			return nil, err
		}
		if err := waitForMessage(ctx, w, message); err != nil {
			return nil, err
		}
		took = append(took, time.Since(started))
	}
	slices.Sort(took)
	p := func(q float64) time.Duration { return took[int(q*float64(len(took)-1))].Round(100 * time.Microsecond) }
	return []result{{
		measure: fmt.Sprintf("Latency: spec.message changed → ConfigMap updated (%d changes, one at a time)", changes),
		value:   fmt.Sprintf("p50 %s, p99 %s, max %s", p(0.50), p(0.99), took[len(took)-1].Round(100*time.Microsecond)),
		goal:    "—", ok: true,
	}}, nil
}

func waitForMessage(ctx context.Context, w watch.Interface, message string) error {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("watch closed before the ConfigMap held %q", message)
			}
			if cm, isCM := ev.Object.(*corev1.ConfigMap); isCM && cm.Data[demov1alpha1.MessageKey] == message {
				return nil
			}
		case <-timeout:
			return fmt.Errorf("the ConfigMap did not hold %q within 10s", message)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
