// Command bench measures the operator on an envtest control plane and prints a Markdown table:
// API writes at rest, throughput against a bare client doing the same writes, spec-to-ConfigMap
// latency, memory with many ConfigMaps it does not own (scoped cache against a naive one), and
// how soon Samples recover once a refusal of their writes is lifted.
// `make bench` runs it; BENCHMARKS.md keeps its output with the machine and the command.
//
// Measuring memory needs the operator in a process of its own: the bench builds and runs
// bench/operator as that process.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func main() {
	samples := flag.Int("samples", 1000, "Samples for the throughput run")
	noise := flag.Int("noise", 10000, "ConfigMaps the operator does not own, for the memory run")
	outage := flag.Duration("outage", 90*time.Second, "how long ConfigMap writes are refused, for the recovery run")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *samples, *noise, *outage); err != nil {
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
