// Command benchpod measures the operator as a Pod of config/default on a local node: its memory,
// as its cgroup counts it, at thousands of converged Samples, against its limit; it prints a
// Markdown table. `make bench-pod` (as root) runs it; BENCHMARKS.md keeps its output.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func main() {
	counts := flag.String("counts", "1000,5000,10000,20000", "counts of converged Samples, measured in turn")
	limit := flag.String("limit", "", "the operator's memory limit meanwhile (empty: the manifest's)")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	n, err := parseCounts(*counts)
	if err == nil {
		err = podMemory(ctx, n, *limit)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-pod:", err)
		os.Exit(1)
	}
}

// parseCounts reads a comma-separated list of counts.
func parseCounts(s string) ([]int, error) {
	var counts []int
	var errs error
	for c := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			errs = errors.Join(errs, fmt.Errorf("-counts: %w", err))
		}
		counts = append(counts, n)
	}
	return counts, errs
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench-pod: "+format+"\n", args...)
}

// limited is cfg with its client-side rate limits set.
func limited(cfg *rest.Config, qps float32, burst int) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = qps, burst
	return c
}

func sampleName(i int) string { return fmt.Sprintf("s%05d", i) }

func mib(bytes float64) string { return fmt.Sprintf("%.1f MiB", bytes/(1<<20)) }
