package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/controllers"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/operator"
	"example.com/operator-demo/testing/poll"
)

// recovery: an admission policy refuses every ConfigMap for outage, during which Samples are
// created one by one, each retrying with its own backoff; then the policy's binding is deleted,
// and each Sample's time to be synced again is taken. The retries' cap (controllers.MaxRetryDelay)
// bounds the worst case.
func recovery(ctx context.Context, e *env, outage time.Duration) ([]result, error) {
	const n = 10
	ns, err := e.namespace(ctx, "recovery")
	if err != nil {
		return nil, err
	}
	op, err := operator.InProcess(limited(e.cp.Config, operatorQPS, operatorBurst), ns, samples.Operator, operator.Options{})
	if err != nil {
		return nil, err
	}
	defer func() { _ = op.Down() }()
	policy, binding := samples.RefuseConfigMaps(ns, "refused by the bench")
	for _, obj := range []client.Object{policy, binding} {
		if err := e.admin.Create(ctx, obj); err != nil {
			return nil, err
		}
		defer func() { _ = e.admin.Delete(context.Background(), obj) }()
	}
	if err := poll.Until(ctx, 100*time.Millisecond, time.Minute, func(ctx context.Context) error {
		return samples.ConfigMapsRefused(ctx, e.admin, ns)
	}); err != nil {
		return nil, err
	}

	progress("recovery: refusing ConfigMaps for %s, %d Samples created during its first half", outage, n)
	refused := time.Now()
	for i := range n {
		if err := e.admin.Create(ctx, samples.New(ns, sampleName(i), "hello world")); err != nil {
			return nil, err
		}
		if err := pause(ctx, outage/2/n); err != nil {
			return nil, err
		}
	}
	if err := pause(ctx, time.Until(refused.Add(outage))); err != nil {
		return nil, err
	}
	if err := e.admin.Delete(ctx, binding); err != nil {
		return nil, err
	}
	lifted := time.Now()
	took, err := recovered(ctx, e, ns, n, lifted)
	if err != nil {
		return nil, err
	}
	slices.Sort(took)
	worst := took[len(took)-1]
	return []result{{
		measure: fmt.Sprintf("Recovery: %d Samples refused for %s (an admission policy), then the refusal lifted: time to Ready", n, outage),
		value:   fmt.Sprintf("median %s, worst %s (retries capped at %s)", took[len(took)/2].Round(100*time.Millisecond), worst.Round(100*time.Millisecond), controllers.MaxRetryDelay),
		goal:    fmt.Sprintf("≤ %s", controllers.MaxRetryDelay+time.Second),
		ok:      worst <= controllers.MaxRetryDelay+time.Second,
	}}, nil
}

// recovered waits until the n Samples in ns are synced and returns, for each, how long after
// lifted it was first seen synced.
func recovered(ctx context.Context, e *env, ns string, n int, lifted time.Time) ([]time.Duration, error) {
	took := map[string]time.Duration{}
	err := poll.Until(ctx, 100*time.Millisecond, 2*controllers.MaxRetryDelay, func(ctx context.Context) error {
		for i := range n {
			name := sampleName(i)
			if _, done := took[name]; done {
				continue
			}
			if _, err := samples.Check(ctx, e.admin, samples.New(ns, name, "")); err == nil {
				took[name] = time.Since(lifted)
			}
		}
		if len(took) < n {
			return fmt.Errorf("%d of %d Samples synced", len(took), n)
		}
		return nil
	})
	out := make([]time.Duration, 0, len(took))
	for _, d := range took {
		out = append(out, d)
	}
	return out, err
}
