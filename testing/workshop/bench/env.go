package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/cluster"
	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/poll"
)

// env is the control plane the bench measures on, and an administrator's client that is not
// itself the bottleneck (QPS 2000).
type env struct {
	cp    *controlplane.ControlPlane
	admin client.WithWatch
}

func startEnv() (*env, error) {
	cp, err := controlplane.Start(nil)
	if err != nil {
		return nil, err
	}
	admin, err := cluster.NewClient(limited(cp.Config, 2000, 4000), samples.Operator.Scheme)
	if err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	return &env{cp: cp, admin: admin}, nil
}

func (e *env) stop() error { return e.cp.Stop() }

// limited is cfg with client-side rate limits qps and burst.
func limited(cfg *rest.Config, qps float32, burst int) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = qps, burst
	return c
}

func (e *env) namespace(ctx context.Context, prefix string) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := e.admin.Create(ctx, ns); err != nil {
		return "", err
	}
	return ns.Name, nil
}

func sampleName(i int) string { return fmt.Sprintf("s%05d", i) }

// createSamples creates n Samples in namespace, 16 at a time.
func (e *env) createSamples(ctx context.Context, namespace string, n int) error {
	var g errgroup.Group
	g.SetLimit(16)
	for i := range n {
		g.Go(func() error { return e.admin.Create(ctx, samples.New(namespace, sampleName(i), "hello world")) })
	}
	return g.Wait()
}

// waitConverged waits until the n Samples in namespace are synced (samples.Synced); it checks
// every 200ms.
func (e *env) waitConverged(ctx context.Context, namespace string, n int, timeout time.Duration) error {
	return poll.Until(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) error {
		synced, err := samples.CountSynced(ctx, e.admin, namespace)
		if err == nil && synced != n {
			err = fmt.Errorf("namespace %s: %d of %d Samples synced", namespace, synced, n)
		}
		return err
	})
}
