package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/harness"
)

// env is the control plane the bench measures on, and an administrator's client that is not
// itself the bottleneck (QPS 2000).
type env struct {
	cp    *controlplane.ControlPlane
	admin client.WithWatch
}

func startEnv() (*env, error) {
	cp, err := controlplane.Start("")
	if err != nil {
		return nil, err
	}
	admin, err := harness.NewClient(limited(cp.Config, 2000, 4000))
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
	return harness.Parallel(n, 16, func(i int) error {
		return e.admin.Create(ctx, &demov1alpha1.Sample{
			ObjectMeta: metav1.ObjectMeta{Name: sampleName(i), Namespace: namespace},
			Spec:       demov1alpha1.SampleSpec{Message: "hello world"},
		})
	})
}

// waitConverged waits until n Samples in namespace report Ready for their generation and their
// ConfigMaps hold their messages; it checks every 200ms.
func (e *env) waitConverged(ctx context.Context, namespace string, n int, timeout time.Duration) error {
	return harness.WaitFor(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) error {
		ready, err := e.converged(ctx, namespace)
		if err == nil && ready != n {
			err = fmt.Errorf("namespace %s: %d of %d Samples converged", namespace, ready, n)
		}
		return err
	})
}

// converged counts the Samples in namespace that are Ready for their generation with their
// ConfigMap holding their message.
func (e *env) converged(ctx context.Context, namespace string) (int, error) {
	samples := &demov1alpha1.SampleList{}
	cms := &corev1.ConfigMapList{}
	if err := e.admin.List(ctx, samples, client.InNamespace(namespace)); err != nil {
		return 0, err
	}
	if err := e.admin.List(ctx, cms, client.InNamespace(namespace)); err != nil {
		return 0, err
	}
	messages := map[string]string{}
	for _, cm := range cms.Items {
		messages[cm.Name] = cm.Data[demov1alpha1.MessageKey]
	}
	n := 0
	for _, s := range samples.Items {
		message, ok := messages[demov1alpha1.ConfigMapName(s.Name)]
		if ok && message == s.Spec.Message && s.Status.ObservedGeneration == s.Generation && meta.IsStatusConditionTrue(s.Status.Conditions, demov1alpha1.ConditionReady) {
			n++
		}
	}
	return n, nil
}
