package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/metrics"
	"example.com/operator-demo/testing/process"
	"example.com/operator-demo/testing/workshop/repo"
)

// memory: the operator's heap and RSS once converged over 100 Samples, with no other ConfigMaps
// in the cluster and with `noise` ConfigMaps it does not own; scoped cache against naive.
func memory(ctx context.Context, e *env, noise int) ([]result, error) {
	const n = 100
	dir, err := os.MkdirTemp("", "bench-memory-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	operator := filepath.Join(dir, "operator")
	if err := buildOperator(operator); err != nil {
		return nil, err
	}
	if err := e2e.WriteKubeconfig(filepath.Join(dir, "kubeconfig"), e.cp.Config); err != nil {
		return nil, err
	}
	ns, err := e.namespace(ctx, "memory")
	if err != nil {
		return nil, err
	}
	if err := e.createSamples(ctx, ns, n); err != nil {
		return nil, err
	}

	type reading struct{ heap, rss float64 }
	measure := func(mode string) (reading, error) {
		heap, rss, err := operatorMemory(ctx, e, operator, mode, dir, ns, n)
		if err != nil {
			return reading{}, fmt.Errorf("memory of the %s operator: %w", mode, err)
		}
		progress("memory: %s: heap %s, RSS %s", mode, mib(heap), mib(rss))
		return reading{heap, rss}, nil
	}
	quiet := map[string]reading{}
	for _, mode := range []string{scoped, naive} {
		if quiet[mode], err = measure(mode); err != nil {
			return nil, err
		}
	}
	progress("memory: creating %d ConfigMaps of 1 KiB that the operator does not own", noise)
	noisy, err := e.namespace(ctx, "noise")
	if err != nil {
		return nil, err
	}
	payload := strings.Repeat("x", 1024)
	var creates errgroup.Group
	creates.SetLimit(32)
	for i := range noise {
		creates.Go(func() error {
			return e.admin.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("noise-%05d", i), Namespace: noisy},
				Data:       map[string]string{"payload": payload},
			})
		})
	}
	if err := creates.Wait(); err != nil {
		return nil, err
	}
	var out []result
	for _, mode := range []string{scoped, naive} {
		loud, err := measure(mode)
		if err != nil {
			return nil, err
		}
		ratio := loud.heap / quiet[mode].heap
		r := result{
			measure: fmt.Sprintf("Memory, %s cache: heap (RSS) with 0 → %d ConfigMaps it does not own", mode, noise),
			value: fmt.Sprintf("%s → %s: **%.2f×** (RSS %s → %s, %.2f×)", mib(quiet[mode].heap), mib(loud.heap), ratio,
				mib(quiet[mode].rss), mib(loud.rss), loud.rss/quiet[mode].rss),
			goal: "≤ 1.2×", ok: ratio <= 1.2,
		}
		if mode == naive {
			r.measure = fmt.Sprintf("Memory, naive Owns(&ConfigMap{}) (for comparison): heap (RSS) with 0 → %d unowned ConfigMaps", noise)
			r.goal, r.ok = "—", true
		}
		out = append(out, r)
	}
	return out, nil
}

// The operator's cache of ConfigMaps, in the memory measurement (bench/operator's -cache).
const (
	scoped = "scoped" // as cmd/ has it: only ConfigMaps with the managed-by label
	naive  = "naive"  // every ConfigMap in the cluster, as a plain Owns(&ConfigMap{}) has it
)

// buildOperator builds bench/operator, the operator under measurement, into path.
func buildOperator(path string) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", path, "./bench/operator")
	cmd.Dir = filepath.Join(root, "testing", "workshop")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build bench/operator: %w\n%s", err, out)
	}
	return nil
}

// operatorMemory runs the operator binary with its cache in mode until the n Samples in ns have
// converged and its memory has settled, and returns its heap in use and its RSS, in bytes. Its
// log goes into dir.
func operatorMemory(ctx context.Context, e *env, operator, mode, dir, ns string, n int) (heap, rss float64, err error) {
	port, err := process.FreePort()
	if err != nil {
		return 0, 0, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	proc, err := process.Start("the "+mode+" operator", filepath.Join(dir, mode+".log"), 30*time.Second, operator,
		"-cache="+mode, "-kubeconfig="+filepath.Join(dir, "kubeconfig"), "-metrics-bind-address="+addr)
	if err != nil {
		return 0, 0, err
	}
	defer func() { err = errors.Join(err, proc.Stop()) }()
	if err := e.waitConverged(ctx, ns, n, 2*time.Minute); err != nil {
		return 0, 0, err
	}
	// Let the informers' initial lists go: the steady state is what stays.
	if err := pause(ctx, 3*time.Second); err != nil {
		return 0, 0, err
	}
	families, err := metrics.Scrape(ctx, "http://"+addr+"/metrics", "")
	if err != nil {
		return 0, 0, err
	}
	gauge := func(name string) (float64, error) {
		for _, f := range families {
			if f.GetName() == name && len(f.GetMetric()) == 1 {
				return f.GetMetric()[0].GetGauge().GetValue(), nil
			}
		}
		return 0, fmt.Errorf("the %s operator's metrics have no %s", mode, name)
	}
	if heap, err = gauge("bench_live_heap_bytes"); err != nil {
		return 0, 0, err
	}
	// The process collector's, as Prometheus sees it; Linux's and Windows' have it.
	rss, err = gauge("process_resident_memory_bytes")
	return heap, rss, err
}

func mib(bytes float64) string { return fmt.Sprintf("%.1f MiB", bytes/(1<<20)) }
