// Command bench prints BENCHMARKS.md's tables: on envtest (make bench) the operator's throughput
// against a bare client's and its memory (scoped cache against naive); with -pod (make bench-pod),
// its memory as a Pod.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/controllers"
	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/poll"
)

func main() {
	e := &env{}
	flag.IntVar(&e.samples, "samples", 1000, "Samples for the throughput run")
	flag.IntVar(&e.noise, "noise", 10000, "ConfigMaps the operator does not own, for the memory run")
	pod := flag.Bool("pod", false, "measure the operator's memory as a Pod on kind instead (make bench-pod)")
	counts := []int{1000, 5000, 10000, 20000}
	flag.Func("counts", "with -pod: counts of converged Samples, measured in turn (default 1000,5000,10000,20000)", func(s string) (err error) { counts, err = parseCounts(s); return err })
	limit := flag.String("limit", "", "with -pod: the operator's memory limit meanwhile (empty: the manifest's)")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	measure := e.run
	if *pod {
		measure = func(ctx context.Context) error { return podMemory(ctx, counts, *limit) }
	}
	if err := measure(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// env is the control plane, an administrator's client that is no bottleneck, and the sizes.
type env struct {
	cp             *controlplane.ControlPlane
	admin          client.WithWatch
	samples, noise int
}

// row is a row of the table.
func row(measure, value, goal string, ok bool) string {
	return fmt.Sprintf("| %s | %s | %s | %s |", measure, value, goal, map[bool]string{true: "ok", false: "**over**"}[ok])
}

func (e *env) run(ctx context.Context) error {
	started := time.Now()
	var err error
	if e.cp, err = controlplane.Start(nil); err != nil {
		return err
	}
	defer func() { _ = e.cp.Stop() }()
	if e.admin, err = cluster.NewClient(limited(e.cp.Config, 2000, 4000), samples.Operator.Scheme); err != nil {
		return err
	}
	boot := time.Since(started).Round(10 * time.Millisecond)
	progress("envtest started in %s", boot)
	rows := []string{row("envtest boot (etcd + kube-apiserver + CRD)", boot.String(), "—", true)}
	// Memory first: its operator watches the whole cluster, which is still empty then.
	for _, measure := range []func(context.Context) ([]string, error){e.memory, e.throughput} {
		r, err := measure(ctx)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	fmt.Printf("\n| Measure | Result | Limit or goal | |\n|---|---|---|---|\n%s\n", strings.Join(rows, "\n"))
	fmt.Printf("\n%d cores (GOMAXPROCS %d), %s/%s, %s; total %s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version(), time.Since(started).Round(time.Second))
	return nil
}

func progress(format string, args ...any) { fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...) }

// pause waits for d, or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	timer, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	<-timer.Done()
	return ctx.Err()
}

// limited is cfg with client-side rate limits qps and burst.
func limited(cfg *rest.Config, qps float32, burst int) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = qps, burst
	return c
}

// namespace creates a namespace prefix-… holding n Samples.
func (e *env) namespace(ctx context.Context, prefix string, n int) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := e.admin.Create(ctx, ns); err != nil {
		return "", err
	}
	return ns.Name, each(n, 32, func(i int) error { return e.admin.Create(ctx, samples.New(ns.Name, sampleName(i), "hello world")) })
}

func sampleName(i int) string { return fmt.Sprintf("s%05d", i) }

// each calls f(0) to f(n-1), limit at a time.
func each(n, limit int, f func(i int) error) error {
	var g errgroup.Group
	g.SetLimit(limit)
	for i := range n {
		g.Go(func() error { return f(i) })
	}
	return g.Wait()
}

// waitConverged waits until the n Samples in namespace are synced, checking every 200ms.
func (e *env) waitConverged(ctx context.Context, namespace string, n int, timeout time.Duration) error {
	return poll.Until(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) error {
		synced, err := samples.CountSynced(ctx, e.admin, namespace)
		if err == nil && synced != n {
			err = fmt.Errorf("namespace %s: %d of %d Samples synced", namespace, synced, n)
		}
		return err
	})
}

// The operator's client limits in the in-process measurements: cmd/'s defaults.
const operatorQPS, operatorBurst = 50, 100

// convergedOperator starts an operator over n new Samples and times it to converge them; the caller stops it.
func (e *env) convergedOperator(ctx context.Context, prefix string, n int, qps float32, burst int, opts operator.Changes) (string, *operator.Operator, time.Duration, error) {
	ns, err := e.namespace(ctx, prefix, n)
	if err != nil {
		return "", nil, 0, err
	}
	started := time.Now()
	op, err := operator.InProcess(limited(e.cp.Config, qps, burst), ns, samples.Operator, opts)
	if err == nil {
		if err = e.waitConverged(ctx, ns, n, 5*time.Minute); err != nil {
			err = errors.Join(err, op.Down())
		}
	}
	return ns, op, time.Since(started), err
}

// throughput: an operator's time to converge e.samples Samples against a bare client's, by limits and workers.
func (e *env) throughput(ctx context.Context) ([]string, error) {
	var out []string
	for _, limits := range [][2]int{{operatorQPS, operatorBurst}, {200, 400}} {
		for _, workers := range []int{1, 2, 4, 8} {
			qps, burst, n := float32(limits[0]), limits[1], e.samples
			bare, err := e.bareClient(ctx, workers, qps, burst)
			if err != nil {
				return nil, err
			}
			_, op, took, err := e.convergedOperator(ctx, "throughput", n, qps, burst, operator.Changes{Settings: operator.Settings{samples.Workers: workers}})
			if err != nil {
				return nil, err
			}
			counts, err := op.Read()
			if err := errors.Join(err, op.Down()); err != nil {
				return nil, err
			}
			ratio := took.Seconds() / bare.Seconds()
			took, bare = took.Round(10*time.Millisecond), bare.Round(10*time.Millisecond)
			progress("throughput: QPS %.0f/burst %d, %d workers: operator %s, bare client %s (%.2f×)", qps, burst, workers, took, bare, ratio)
			out = append(out, row(fmt.Sprintf("Throughput: %d Samples to Ready, QPS %.0f/burst %d, MaxConcurrentReconciles %d", n, qps, burst, workers),
				fmt.Sprintf("%s vs bare client %s: **%.2f×** (%.2f writes per Sample)", took, bare, ratio, counts.Writes/float64(n)), "≤ 1.2×", ratio <= 1.2))
		}
	}
	return out, nil
}

// bareClient times workers goroutines making, at the operator's limits, its writes for e.samples new Samples.
func (e *env) bareClient(ctx context.Context, workers int, qps float32, burst int) (time.Duration, error) {
	ns, err := e.namespace(ctx, "bare", e.samples)
	list := &demov1alpha1.SampleList{}
	if err == nil {
		err = e.admin.List(ctx, list, client.InNamespace(ns))
	}
	c, clientErr := cluster.NewClient(limited(e.cp.Config, qps, burst), samples.Operator.Scheme)
	if err := errors.Join(err, clientErr); err != nil {
		return 0, err
	}
	started := time.Now()
	err = each(len(list.Items), workers, func(i int) error {
		s := &list.Items[i]
		before := s.DeepCopy()
		if err := c.Create(ctx, synced(s)); err != nil {
			return err
		}
		return c.Status().Patch(ctx, s, client.MergeFrom(before))
	})
	return time.Since(started), err
}

// synced gives s the status the operator gives it once synced, and returns the ConfigMap it writes.
func synced(s *demov1alpha1.Sample) *corev1.ConfigMap {
	cm := samples.ConfigMapOf(s)
	cm.Labels = map[string]string{controllers.ManagedByLabel: controllers.ManagedByValue}
	cm.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(s, demov1alpha1.GroupVersion.WithKind("Sample"))}
	cm.Data = map[string]string{demov1alpha1.MessageKey: s.Spec.Message}
	s.Status.ObservedGeneration, s.Status.ConfigMapName = s.Generation, cm.Name
	meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: demov1alpha1.ConditionReady, Status: metav1.ConditionTrue,
		Reason: demov1alpha1.ReasonSynced, Message: "ConfigMap " + cm.Name + " holds spec.message", ObservedGeneration: s.Generation})
	return cm
}
