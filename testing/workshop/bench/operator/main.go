// Command operator is the operator under make bench's memory measurement, in a process of its
// own: cmd/'s manager (-cache=scoped), or the same with the ConfigMap cache left unscoped
// (-cache=naive), as a plain Owns(&ConfigMap{}) has it. Among its metrics, bench_live_heap_bytes
// is its live heap, after a collection. The cluster comes from controller-runtime's own
// -kubeconfig flag.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"example.com/operator-demo/controllers"
)

func main() {
	mode := flag.String("cache", "scoped", "scoped (as cmd/ has it: only ConfigMaps with the managed-by label) or naive (every ConfigMap in the cluster)")
	metricsAddr := flag.String("metrics-bind-address", "", "where to serve metrics (plain HTTP)")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	if err := run(*mode, *metricsAddr); err != nil {
		fmt.Fprintln(os.Stderr, "operator:", err)
		os.Exit(1)
	}
}

func run(mode, metricsAddr string) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	// cmd/'s client limits.
	cfg.QPS, cfg.Burst = 50, 100
	opts := controllers.ManagerOptions(ctrl.Options{
		Scheme:                 controllers.NewScheme(),
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: "0",
	})
	switch mode {
	case "scoped":
	case "naive":
		opts.Cache.ByObject = nil
	default:
		return fmt.Errorf("-cache=%q: want scoped or naive", mode)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return err
	}
	metrics.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "bench_live_heap_bytes",
		Help: "The live heap, after a collection: what the operator holds, not what it has yet to free.",
	}, func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc)
	}))
	if err := controllers.NewSampleReconciler(mgr).SetupWithManager(mgr); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
