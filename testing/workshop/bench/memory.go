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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/e2e/metrics"
	"example.com/operator-demo/testing/offline/process"
	"example.com/operator-demo/testing/workshop/repo"
)

// memory: the operator's heap and RSS over 100 Samples, without and with e.noise unowned ConfigMaps.
func (e *env) memory(ctx context.Context) ([]string, error) {
	const n = 100
	dir, err := os.MkdirTemp("", "bench-memory-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	operator, ns := filepath.Join(dir, "operator"), ""
	root, err := repo.Root()
	if err == nil {
		if out, buildErr := exec.Command("go", "build", "-C", filepath.Join(root, "testing", "workshop"), "-o", operator, "./bench/operator").CombinedOutput(); buildErr != nil {
			err = fmt.Errorf("build bench/operator: %w\n%s", buildErr, out)
		}
	}
	if err == nil {
		err = e2e.WriteKubeconfig(filepath.Join(dir, "kubeconfig"), e.cp.Config)
	}
	if err == nil {
		ns, err = e.namespace(ctx, "memory", n)
	}
	if err != nil {
		return nil, err
	}
	var heap, rss [2][2]float64 // scoped, naive; without, then with the noise
	for noise := range 2 {
		if noise == 1 {
			progress("memory: creating %d ConfigMaps of 1 KiB that the operator does not own", e.noise)
			payload := map[string]string{"payload": strings.Repeat("x", 1024)}
			noisy, err := e.namespace(ctx, "noise", 0)
			if err == nil {
				err = each(e.noise, 32, func(i int) error {
					return e.admin.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("noise-%05d", i), Namespace: noisy}, Data: payload})
				})
			}
			if err != nil {
				return nil, err
			}
		}
		for m, mode := range []string{"scoped", "naive"} {
			if heap[m][noise], rss[m][noise], err = e.operatorMemory(ctx, operator, mode, dir, ns, n); err != nil {
				return nil, fmt.Errorf("memory of the %s operator: %w", mode, err)
			}
			progress("memory: %s: heap %s, RSS %s", mode, mib(heap[m][noise]), mib(rss[m][noise]))
		}
	}
	ratio := func(m int) float64 { return heap[m][1] / heap[m][0] }
	value := func(m int) string {
		return fmt.Sprintf("%s → %s: **%.2f×** (RSS %s → %s, %.2f×)", mib(heap[m][0]), mib(heap[m][1]), ratio(m), mib(rss[m][0]), mib(rss[m][1]), rss[m][1]/rss[m][0])
	}
	return []string{
		row(fmt.Sprintf("Memory, scoped cache: heap (RSS) with 0 → %d ConfigMaps it does not own", e.noise), value(0), "≤ 1.2×", ratio(0) <= 1.2),
		row(fmt.Sprintf("Memory, naive Owns(&ConfigMap{}) (for comparison): heap (RSS) with 0 → %d unowned ConfigMaps", e.noise), value(1), "—", true),
	}, nil
}

// operatorMemory runs bench/operator, its cache in mode, over the n Samples in ns: its heap and RSS.
func (e *env) operatorMemory(ctx context.Context, operator, mode, dir, ns string, n int) (heap, rss float64, err error) {
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
	// Converged, then the informers' initial lists let go: the steady state is what stays.
	if err = e.waitConverged(ctx, ns, n, 2*time.Minute); err == nil {
		err = pause(ctx, 3*time.Second)
	}
	if err != nil {
		return 0, 0, err
	}
	families, err := metrics.Scrape(ctx, "http://"+addr+"/metrics", "")
	gauges := map[string]float64{}
	for _, f := range families {
		if len(f.GetMetric()) == 1 {
			gauges[f.GetName()] = f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	heap, rss = gauges["bench_live_heap_bytes"], gauges["process_resident_memory_bytes"] // RSS: the process collector's (Linux, Windows)
	if err == nil && (heap == 0 || rss == 0) {
		err = fmt.Errorf("the %s operator's metrics lack bench_live_heap_bytes or process_resident_memory_bytes", mode)
	}
	return heap, rss, err
}

func mib(bytes float64) string { return fmt.Sprintf("%.1f MiB", bytes/(1<<20)) }
