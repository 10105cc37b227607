// Command bench prints BENCHMARKS.md's tables: on envtest (make bench) writes at rest, throughput,
// latency, memory (scoped cache against naive), recovery; with -pod (make bench-pod), Pod memory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
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
	flag.DurationVar(&e.outage, "outage", 90*time.Second, "how long ConfigMap writes are refused, for the recovery run")
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
	outage         time.Duration
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
	for _, measure := range []func(context.Context) ([]string, error){e.memory, e.writesAtRest, e.throughput, e.latency, e.recovery} {
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
func (e *env) convergedOperator(ctx context.Context, prefix string, n int, qps float32, burst int, opts operator.Options) (string, *operator.Operator, time.Duration, error) {
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

// writesAtRest: API writes per reconcile that finds nothing to do, and during 30 s at rest.
func (e *env) writesAtRest(ctx context.Context) ([]string, error) {
	const n = 100
	ns, op, _, err := e.convergedOperator(ctx, "writes", n, operatorQPS, operatorBurst, operator.Options{})
	if err != nil {
		return nil, err
	}
	defer func() { _ = op.Down() }()
	progress("writes: %d no-op reconciles (an unmanaged annotation on every ConfigMap)", n)
	before, err := op.Counts()
	if err == nil {
		err = each(n, 32, func(i int) error {
			return samples.MergePatch(ctx, e.admin, &corev1.ConfigMap{}, ns, demov1alpha1.ConfigMapName(sampleName(i)), `{"metadata":{"annotations":{"bench/touched":"yes"}}}`)
		})
	}
	after := before
	if err == nil {
		err = poll.Until(ctx, 50*time.Millisecond, time.Minute, func(context.Context) error {
			var err error
			if after, err = op.Counts(); err == nil && after.Reconciles < before.Reconciles+n {
				err = fmt.Errorf("counters at %+v", after)
			}
			return err
		})
	}
	if err == nil {
		progress("writes: 30 s at rest with %d converged Samples", n)
		err = pause(ctx, 30*time.Second)
	}
	end, endErr := op.Counts()
	if err := errors.Join(err, endErr); err != nil {
		return nil, err
	}
	writes, reconciles := after.Writes-before.Writes, after.Reconciles-before.Reconciles
	return []string{
		row(fmt.Sprintf("API writes per no-op reconcile (%d Samples, each reconciled after an unmanaged edit)", n), fmt.Sprintf("%.2f (%.0f writes in %.0f reconciles)", writes/reconciles, writes, reconciles), "0", writes == 0),
		row(fmt.Sprintf("API writes during 30 s at rest, %d converged Samples", n), fmt.Sprintf("%.0f (and %.0f reconciles)", end.Writes-after.Writes, end.Reconciles-after.Reconciles), "0", end.Writes == after.Writes),
	}, nil
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
			_, op, took, err := e.convergedOperator(ctx, "throughput", n, qps, burst, operator.Options{Settings: operator.Settings{samples.Workers: workers}})
			if err != nil {
				return nil, err
			}
			counts, err := op.Counts()
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
		if err := c.Create(ctx, controllers.DesiredConfigMap(s)); err != nil {
			return err
		}
		before := s.DeepCopy()
		s.Status = controllers.DesiredStatus(s, nil, metav1.Now())
		return c.Status().Patch(ctx, s, client.MergeFrom(before))
	})
	return time.Since(started), err
}

// latency: spec.message changed, then the time until a watch sees the ConfigMap hold it.
func (e *env) latency(ctx context.Context) ([]string, error) {
	const changes = 200
	ns, op, _, err := e.convergedOperator(ctx, "latency", 1, operatorQPS, operatorBurst, operator.Options{})
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
	took := make([]time.Duration, changes)
	for i := range changes {
		message := fmt.Sprintf("change %d", i)
		started := time.Now()
		if err := samples.MergePatch(ctx, e.admin, &demov1alpha1.Sample{}, ns, sampleName(0), `{"spec":{"message":"`+message+`"}}`); err != nil {
			return nil, err
		}
		timeout := time.After(10 * time.Second)
		for held := false; !held; {
			select {
			case ev, open := <-w.ResultChan():
				if !open { // and so once ctx is done
					return nil, fmt.Errorf("watch closed before the ConfigMap held %q", message)
				}
				cm, isCM := ev.Object.(*corev1.ConfigMap)
				held = isCM && cm.Data[demov1alpha1.MessageKey] == message
			case <-timeout:
				return nil, fmt.Errorf("the ConfigMap did not hold %q within 10s", message)
			}
		}
		took[i] = time.Since(started)
	}
	slices.Sort(took)
	p := func(q float64) time.Duration { return took[int(q*float64(len(took)-1))].Round(100 * time.Microsecond) }
	return []string{row(fmt.Sprintf("Latency: spec.message changed → ConfigMap updated (%d changes, one at a time)", changes),
		fmt.Sprintf("p50 %s, p99 %s, max %s", p(0.50), p(0.99), p(1)), "—", true)}, nil
}

// recovery: ConfigMaps refused for e.outage, Samples created during its first half: each one's time to sync after.
func (e *env) recovery(ctx context.Context) ([]string, error) {
	const n = 10
	ns, op, _, err := e.convergedOperator(ctx, "recovery", 0, operatorQPS, operatorBurst, operator.Options{})
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
	progress("recovery: refusing ConfigMaps for %s, %d Samples created during its first half", e.outage, n)
	err = poll.Until(ctx, 100*time.Millisecond, time.Minute, func(ctx context.Context) error { return samples.ConfigMapsRefused(ctx, e.admin, ns) })
	refused := time.Now()
	for i := 0; i < n && err == nil; i++ {
		if err = e.admin.Create(ctx, samples.New(ns, sampleName(i), "hello world")); err == nil {
			err = pause(ctx, e.outage/2/n)
		}
	}
	if err == nil {
		err = pause(ctx, time.Until(refused.Add(e.outage)))
	}
	if err == nil {
		err = e.admin.Delete(ctx, binding)
	}
	lifted, took := time.Now(), make([]time.Duration, n) // 0: not yet synced
	if err == nil {
		err = poll.Until(ctx, 100*time.Millisecond, 2*controllers.MaxRetryDelay, func(ctx context.Context) error {
			for i := range took {
				if took[i] == 0 {
					if _, err := samples.Check(ctx, e.admin, samples.New(ns, sampleName(i), "")); err == nil {
						took[i] = time.Since(lifted)
					}
				}
			}
			if i := slices.Index(took, 0); i >= 0 {
				return fmt.Errorf("sample %s not synced yet", sampleName(i))
			}
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(took)
	worst, limit := took[n-1], controllers.MaxRetryDelay+time.Second
	return []string{row(fmt.Sprintf("Recovery: %d Samples refused for %s (an admission policy), then the refusal lifted: time to Ready", n, e.outage),
		fmt.Sprintf("median %s, worst %s (retries capped at %s)", took[n/2].Round(100*time.Millisecond), worst.Round(100*time.Millisecond), controllers.MaxRetryDelay),
		fmt.Sprintf("≤ %s", limit), worst <= limit)}, nil
}
