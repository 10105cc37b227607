// Command demo walks through the kubebuilder walkthrough (§10) of the introductory Kubernetes
// Operator article (RevComm Advent Calendar 2025, day 2, in Japanese) on a local cluster, with
// nothing installed but Go: it starts a control plane with a garbage collector (the envtest binaries plus
// kube-controller-manager), deploys the operator as config/default describes, and for each step
// prints the kubectl command that does the same, does it, and checks what the operator did. It
// exits non-zero if any step does not behave. With -keep it then leaves the cluster running for
// kubectl by hand, until Ctrl-C. `make demo` (KEEP=1) runs it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/localcluster"
	"example.com/operator-demo/testing/poll"
)

// timeout bounds how long the operator (or the garbage collector) may take to act on a step.
const timeout = 15 * time.Second

func main() {
	keep := flag.Bool("keep", false, "leave the cluster running after the walkthrough, until Ctrl-C")
	binary := flag.String("operator", "bin/manager", "the operator binary (make build)")
	dir := flag.String("dir", "reports/demo", "where the cluster keeps its kubeconfigs and logs")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dir, *binary, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "\ndemo FAILED:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir, binary string, keep bool) (err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return err
	}
	say("Starting a local cluster: etcd, kube-apiserver, kube-controller-manager (garbage collector), the operator")
	started := time.Now()
	d, err := localcluster.StartDeployment(ctx, dir, binary, samples.Operator)
	if err != nil {
		return err
	}
	defer func() {
		say("Stopping the operator and the cluster")
		err = errors.Join(err, d.Stop())
	}()
	say("Ready in %s. Logs and kubeconfigs: %s", time.Since(started).Round(100*time.Millisecond), dir)

	w := &walkthrough{c: d.Client, key: client.ObjectKey{Namespace: "default", Name: "sample-sample"}}
	for _, s := range w.steps() {
		fmt.Printf("\n== %s\n   $ %s\n", s.title, s.kubectl)
		if err := s.do(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
		observed, err := s.expect(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w\n   operator log: %s", s.title, err, d.Operator.Logs())
		}
		fmt.Printf("   observed: %s\n", observed)
	}
	say("\nEvery step behaved.")

	if !keep {
		return nil
	}
	if err := w.createSample(ctx, "hello world"); err != nil {
		return err
	}
	say("\nThe cluster is yours, with sample-sample applied again. In another shell:\n")
	fmt.Printf("   export KUBECONFIG=%s\n   export PATH=%s:$PATH   # kubectl %s\n",
		d.AdminKubeconfig, filepath.Dir(d.Kubectl()), "of the cluster's version")
	fmt.Printf("   kubectl get samples,configmaps\n   kubectl edit configmap sample-sample-config   # and watch it revert\n")
	fmt.Printf("   METRICS=%s TOKEN=%s   # the operator's metrics, as a metrics-reader\n\n", d.Operator.MetricsURL(), d.MetricsToken)
	say("Operator log: %s. Ctrl-C stops everything.", d.Operator.Logs()[len(d.Operator.Logs())-1])
	<-ctx.Done()
	return nil
}

func say(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// walkthrough is the article's §10, on the Sample default/sample-sample.
type walkthrough struct {
	c   client.Client
	key client.ObjectKey
	uid string // of the ConfigMap, to tell a recreated one
}

type step struct {
	title, kubectl string
	do             func(context.Context) error
	// expect waits until the cluster shows what the step should cause, and describes it.
	expect func(context.Context) (string, error)
}

func (w *walkthrough) steps() []step {
	cmKey := client.ObjectKey{Namespace: w.key.Namespace, Name: demov1alpha1.ConfigMapName(w.key.Name)}
	return []step{
		{
			title:   "Apply a Sample: its ConfigMap is created",
			kubectl: "kubectl apply -f config/samples/demo_v1alpha1_sample.yaml",
			do:      func(ctx context.Context) error { return w.createSample(ctx, "hello world") },
			expect:  w.synced("hello world"),
		},
		{
			title:   "Change spec.message: the ConfigMap follows",
			kubectl: `kubectl patch sample sample-sample --type merge -p '{"spec":{"message":"updated"}}'`,
			do: func(ctx context.Context) error {
				return samples.MergePatch(ctx, w.c, &demov1alpha1.Sample{}, w.key.Namespace, w.key.Name, `{"spec":{"message":"updated"}}`)
			},
			expect: w.synced("updated"),
		},
		{
			title:   "Edit the ConfigMap directly: the operator reverts it",
			kubectl: `kubectl patch configmap sample-sample-config --type merge -p '{"data":{"message":"fixed_directly"}}'`,
			do: func(ctx context.Context) error {
				return samples.MergePatch(ctx, w.c, &corev1.ConfigMap{}, cmKey.Namespace, cmKey.Name, `{"data":{"message":"fixed_directly"}}`)
			},
			expect: w.synced("updated"),
		},
		{
			title:   "Delete the ConfigMap: the operator creates it again",
			kubectl: "kubectl delete configmap sample-sample-config",
			do: func(ctx context.Context) error {
				cm := &corev1.ConfigMap{}
				if err := w.c.Get(ctx, cmKey, cm); err != nil {
					return err
				}
				w.uid = string(cm.UID)
				return w.c.Delete(ctx, cm)
			},
			expect: func(ctx context.Context) (string, error) {
				cm := &corev1.ConfigMap{}
				err := waitFor(ctx, func() error {
					if err := w.c.Get(ctx, cmKey, cm); err != nil {
						return err
					}
					if string(cm.UID) == w.uid {
						return errors.New("still the deleted ConfigMap")
					}
					return nil
				})
				return fmt.Sprintf("ConfigMap %s is back with a new uid %s, message %q", cmKey.Name, cm.UID, cm.Data[demov1alpha1.MessageKey]), err
			},
		},
		{
			title:   "Delete the Sample: the garbage collector deletes its ConfigMap",
			kubectl: "kubectl delete sample sample-sample",
			do: func(ctx context.Context) error {
				return w.c.Delete(ctx, &demov1alpha1.Sample{ObjectMeta: metav1.ObjectMeta{Namespace: w.key.Namespace, Name: w.key.Name}})
			},
			expect: func(ctx context.Context) (string, error) {
				started := time.Now()
				err := waitFor(ctx, func() error {
					err := w.c.Get(ctx, cmKey, &corev1.ConfigMap{})
					switch {
					case apierrors.IsNotFound(err):
						return nil
					case err != nil:
						return err
					}
					return fmt.Errorf("ConfigMap %s is still there", cmKey.Name)
				})
				return fmt.Sprintf("ConfigMap %s is gone, %s after its Sample", cmKey.Name, time.Since(started).Round(time.Millisecond)), err
			},
		},
	}
}

func (w *walkthrough) createSample(ctx context.Context, message string) error {
	return w.c.Create(ctx, samples.New(w.key.Namespace, w.key.Name, message))
}

// synced waits until the Sample holds message and the operator has synced its ConfigMap to it
// (samples.Synced).
func (w *walkthrough) synced(message string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		sample := samples.New(w.key.Namespace, w.key.Name, "")
		var cm *corev1.ConfigMap
		err := waitFor(ctx, func() (err error) {
			if cm, err = samples.Check(ctx, w.c, sample); err == nil && sample.Spec.Message != message {
				err = fmt.Errorf("the Sample holds message %q, not %q yet", sample.Spec.Message, message)
			}
			return err
		})
		return fmt.Sprintf("ConfigMap %s holds message %q (resourceVersion %s); the Sample is Ready", cm.Name, message, cm.ResourceVersion), err
	}
}

// waitFor calls check every 100ms until it returns nil, and fails with its last error after timeout.
func waitFor(ctx context.Context, check func() error) error {
	return poll.Until(ctx, 100*time.Millisecond, timeout, func(context.Context) error { return check() })
}
