// Command operator is cmd/'s manager alone, for make bench's memory run: its ConfigMap cache scoped
// or naive (a plain Owns(&ConfigMap{})), serving its live heap after a GC (bench_live_heap_bytes).
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
	cache := flag.String("cache", "scoped", "scoped (as cmd/ has it: only ConfigMaps with the managed-by label) or naive (every ConfigMap in the cluster)")
	metricsAddr := flag.String("metrics-bind-address", "", "where to serve metrics (plain HTTP)")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	cfg, err := ctrl.GetConfig()
	opts := controllers.ManagerOptions(ctrl.Options{Scheme: controllers.NewScheme(), Metrics: metricsserver.Options{BindAddress: *metricsAddr}, HealthProbeBindAddress: "0"})
	if *cache == "naive" {
		opts.Cache.ByObject = nil
	} else if *cache != "scoped" {
		err = fmt.Errorf("-cache=%q: want scoped or naive", *cache)
	}
	var mgr ctrl.Manager
	if err == nil {
		cfg.QPS, cfg.Burst = 50, 100 // cmd/'s client limits
		mgr, err = ctrl.NewManager(cfg, opts)
	}
	if err == nil {
		metrics.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bench_live_heap_bytes",
			Help: "The live heap, after a collection: what the operator holds, not what it has yet to free.",
		}, func() float64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return float64(m.HeapAlloc)
		}))
		err = controllers.NewSampleReconciler(mgr).SetupWithManager(mgr)
	}
	if err == nil {
		err = mgr.Start(ctrl.SetupSignalHandler())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "operator:", err)
		os.Exit(1)
	}
}
