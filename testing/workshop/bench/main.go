// Command bench measures the operator on an envtest control plane and prints a Markdown table:
// API writes at rest, throughput against a bare client doing the same writes, spec-to-ConfigMap
// latency, memory with many ConfigMaps it does not own (scoped cache against a naive one), and
// how soon Samples recover once a refusal of their writes is lifted.
// `make bench` runs it; BENCHMARKS.md keeps its output with the machine and the command. With
// -pod (`make bench-pod`, as root) it measures the operator as a Pod on a local node instead: its
// memory at thousands of converged Samples, as its cgroup counts it, against its limit.
//
// Measuring memory needs the operator in a process of its own: the bench runs itself again
// with -operator=scoped|naive as that process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func main() {
	operator := flag.String("operator", "", "run as the operator under measurement: scoped (as cmd/) or naive (caches every ConfigMap)")
	metricsAddr := flag.String("metrics-bind-address", "", "with -operator: where to serve metrics (plain HTTP)")
	samples := flag.Int("samples", 1000, "Samples for the throughput run")
	noise := flag.Int("noise", 10000, "ConfigMaps the operator does not own, for the memory run")
	outage := flag.Duration("outage", 90*time.Second, "how long ConfigMap writes are refused, for the recovery run")
	loopLabel := flag.String("loop", "", "measure the test-first loop for the scenario with this label instead (make bench-loop)")
	pod := flag.String("pod", "", "measure the operator as a Pod on a local node instead, at these counts of converged Samples, e.g. 1000,5000 (make bench-pod)")
	podLimit := flag.String("pod-limit", "", "with -pod: the operator's memory limit (empty: the manifest's)")
	runs := flag.Int("runs", 3, "with -loop: runs of each kind")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch {
	case *loopLabel != "":
		err = loop(*loopLabel, *runs)
	case *pod != "":
		var counts []int
		for c := range strings.SplitSeq(*pod, ",") {
			n, perr := strconv.Atoi(strings.TrimSpace(c))
			if perr != nil {
				err = errors.Join(err, fmt.Errorf("-pod: %w", perr))
			}
			counts = append(counts, n)
		}
		if err == nil {
			err = podMemory(ctx, counts, *podLimit)
		}
	case *operator != "":
		// The cluster comes from controller-runtime's own -kubeconfig flag.
		err = runOperator(ctx, *operator, *metricsAddr)
	default:
		err = run(ctx, *samples, *noise, *outage)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// result is one row of the table.
type result struct {
	measure, value, goal string
	ok                   bool
}

func run(ctx context.Context, samples, noise int, outage time.Duration) error {
	started := time.Now()
	e, err := startEnv()
	if err != nil {
		return err
	}
	defer func() { _ = e.stop() }()
	boot := time.Since(started)
	progress("envtest started in %s", boot.Round(10*time.Millisecond))

	var rows []result
	add := func(r ...result) { rows = append(rows, r...) }
	add(result{measure: "envtest boot (etcd + kube-apiserver + CRD)", value: boot.Round(10 * time.Millisecond).String(), goal: "—", ok: true})

	// Memory first: its operator watches the whole cluster, which is still empty then.
	for _, measure := range []func(context.Context, *env) ([]result, error){
		func(ctx context.Context, e *env) ([]result, error) { return memory(ctx, e, noise) },
		writesAtRest,
		func(ctx context.Context, e *env) ([]result, error) { return throughput(ctx, e, samples) },
		latency,
		func(ctx context.Context, e *env) ([]result, error) { return recovery(ctx, e, outage) },
	} {
		r, err := measure(ctx, e)
		if err != nil {
			return err
		}
		add(r...)
	}

	fmt.Printf("\n| Measure | Result | Limit or goal | |\n|---|---|---|---|\n")
	for _, r := range rows {
		verdict := "ok"
		if !r.ok {
			verdict = "**over**"
		}
		fmt.Printf("| %s | %s | %s | %s |\n", r.measure, r.value, r.goal, verdict)
	}
	fmt.Printf("\n%d cores (GOMAXPROCS %d), %s/%s, %s; total %s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version(), time.Since(started).Round(time.Second))
	return nil
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

// pause waits for d, or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
