package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/e2e/metrics"
	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/poll"
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

// parseCounts reads -counts, a comma-separated list: a JSON array's numbers.
func parseCounts(s string) (counts []int, err error) {
	if err = json.Unmarshal([]byte("["+s+"]"), &counts); err == nil && len(counts) == 0 {
		err = errors.New("no count")
	}
	return counts, err
}

// The operator's client limits while it converges the Samples: the manifest's (QPS 50) take over
// 13 minutes for 20,000, and its memory depends on what it caches, not on how fast it came.
const creationQPS, creationBurst = "1000", "2000"

// podMemory measures the operator as a Pod on kind at each count in turn, under limit ("": the manifest's).
func podMemory(ctx context.Context, counts []int, limit string) error {
	started := time.Now()
	d, err := e2e.DeployOnKind(ctx, samples.Operator)
	if err != nil {
		return err
	}
	defer func() { _ = d.Stop() }()
	progress("pod: the operator deployed on kind in %s", time.Since(started).Round(time.Second))
	pods, err := d.Pods(ctx)
	if err != nil || len(pods) != 1 {
		return errors.Join(fmt.Errorf("%d Pods of the operator", len(pods)), err)
	}
	manifest := pods[0].Spec.Containers[0]
	if limit == "" {
		limit = manifest.Resources.Limits.Memory().String()
	}
	admin, err := cluster.NewClient(limited(d.Config, 2000, 4000), samples.Operator.Scheme)
	if err == nil {
		err = admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}})
	}
	if err != nil {
		return err
	}
	fmt.Printf("\n| Converged Samples | Container memory: usage, working set (peak since start) | Operator RSS (anon + file) | Limit | Restarts | A restart to every Sample reconciled (its rollout included) |\n|---|---|---|---|---|---|\n")
	have := 0
	for _, n := range counts {
		row, err := atCount(ctx, d, admin, manifest, have, n, limit)
		if errors.Is(err, errOOMKilled) {
			fmt.Printf("| %d | OOMKilled: %v | — | %s | %s | never |\n", n, err, limit, restarts(ctx, d))
			break // more Samples would only be killed sooner
		}
		if err != nil {
			return err
		}
		have = n
		fmt.Println(row)
	}
	cgroup := "v1"
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		cgroup = "v2"
	}
	fmt.Printf("\n%d cores, %s/%s, %s, cgroup %s; total %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), cgroup, time.Since(started).Round(time.Second))
	return nil
}

// atCount: n Samples converged at raised limits, the operator restarted at the manifest's and measured.
func atCount(ctx context.Context, d *e2e.KindDeployment, admin client.Client, manifest corev1.Container, have, n int, limit string) (string, error) {
	progress("pod: %d Samples: converging them at QPS %s", n, creationQPS)
	if err := rollTo(ctx, d, append(manifest.Args, "--kube-api-qps="+creationQPS, "--kube-api-burst="+creationBurst), limit); err != nil {
		return "", err
	}
	if err := each(n-have, 32, func(i int) error { return admin.Create(ctx, samples.New("bench", sampleName(have+i), "hello world")) }); err != nil {
		return "", err
	}
	if err := poll.Until(ctx, 5*time.Second, 30*time.Minute, func(ctx context.Context) error {
		if err := killedForMemory(ctx, d); err != nil {
			return poll.Stop(fmt.Errorf("converging %d Samples: %w", n, err))
		}
		count, err := samples.CountSynced(ctx, admin, "bench")
		if err == nil && count < n {
			err = fmt.Errorf("%d of %d Samples synced", count, n)
		}
		return err
	}); err != nil {
		return "", err
	}
	progress("pod: %d Samples: restarting the operator at the manifest's flags, limit %s", n, limit)
	restarted := time.Now()
	if err := rollTo(ctx, d, manifest.Args, limit); err != nil {
		if oom := killedForMemory(ctx, d); oom != nil {
			return "", fmt.Errorf("restarting over %d Samples: %w", n, oom)
		}
		return "", err
	}
	if err := poll.Until(ctx, time.Second, 10*time.Minute, func(context.Context) error {
		reconciled, _, err := d.Operator.Sum("controller_runtime_reconcile_total", "", "")
		if err == nil && reconciled < float64(n) {
			err = fmt.Errorf("%.0f of %d Samples reconciled since the restart", reconciled, n)
		}
		return err
	}); err != nil {
		return "", err
	}
	reconciled := time.Since(restarted)
	memory, err := measurePod(ctx, d)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("| %d | %s | %s | %s | %s |", n, memory, limit, restarts(ctx, d), reconciled.Round(100*time.Millisecond)), nil
}

// rollTo rolls the operator out with the manager's args and memory limit.
func rollTo(ctx context.Context, d *e2e.KindDeployment, args []string, limit string) error {
	if err := d.Client.Patch(ctx, d.Manifests.Deployment.DeepCopy(), client.RawPatch(types.StrategicMergePatchType, managerPatch(args, limit))); err != nil {
		return err
	}
	return e2e.WaitRollout(ctx, d.Client, d.Namespace, d.Manifests.Deployment.GetName(), e2e.Rollout)
}

// managerPatch is the strategic merge patch that gives the manager args and a memory limit.
func managerPatch(args []string, limit string) []byte {
	quoted, _ := json.Marshal(args) // strings always marshal
	return fmt.Appendf(nil, `{"spec":{"template":{"spec":{"containers":[{"name":"manager","args":%s,"resources":{"limits":{"memory":%q}}}]}}}}`, quoted, limit)
}

// measurePod reads the operator's memory, 20 s on (the informers' initial lists let go), from its
// container's memory cgroup, which this machine's cgroup file system shows below the kind node's
// (named by its ID, or cri-containerd-<ID>.scope under the systemd cgroup driver), and from /proc.
func measurePod(ctx context.Context, d *e2e.KindDeployment) (string, error) {
	if err := pause(ctx, 20*time.Second); err != nil {
		return "", err
	}
	pods, err := d.Pods(ctx)
	if err != nil || len(pods) != 1 || len(pods[0].Status.ContainerStatuses) != 1 {
		return "", errors.Join(fmt.Errorf("want one Pod of the operator, with one container: %d", len(pods)), err)
	}
	_, id, _ := strings.Cut(pods[0].Status.ContainerStatuses[0].ContainerID, "://")
	root := "/sys/fs/cgroup/memory" // cgroup v1's memory hierarchy, else v2's one
	if _, err := os.Stat(root); err != nil {
		root = "/sys/fs/cgroup"
	}
	cg := ""
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() && (e.Name() == id || e.Name() == "cri-containerd-"+id+".scope") {
			cg = p
			return filepath.SkipAll
		}
		return nil
	})
	if cg == "" {
		return "", fmt.Errorf("no memory cgroup of container %s below %s", id, root)
	}
	usage, workingSet, peak, pid, err := cgroupMemory(cg)
	var status procfs.ProcStatus
	if err == nil {
		var p procfs.Proc
		if p, err = procfs.NewProc(pid); err == nil {
			status, err = p.NewStatus()
		}
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, %s (%s) | %s + %s", mib(usage), mib(workingSet), mib(peak), mib(float64(status.RssAnon)), mib(float64(status.RssFile))), nil
}

// cgroupMemory reads a memory cgroup (v1 or v2): usage, working set, peak, and its first process.
func cgroupMemory(cg string) (usage, workingSet, peak float64, pid int, err error) {
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(cg, name))
		return strings.TrimSpace(string(b))
	}
	number := func(name string) float64 {
		v, _ := strconv.ParseFloat(read(name), 64)
		return v
	}
	stats := map[string]float64{}
	for line := range strings.SplitSeq(read("memory.stat"), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok {
			stats[k], _ = strconv.ParseFloat(v, 64)
		}
	}
	usage, peak, inactive := number("memory.current"), number("memory.peak"), stats["inactive_file"]
	if strings.Contains(cg, "/memory/") { // cgroup v1
		usage, peak, inactive = number("memory.usage_in_bytes"), number("memory.max_usage_in_bytes"), stats["total_inactive_file"]
	}
	first, _, _ := strings.Cut(read("cgroup.procs"), "\n")
	if pid, err = strconv.Atoi(first); err == nil && len(stats) == 0 {
		err = fmt.Errorf("%s has no memory.stat", cg)
	}
	return usage, usage - inactive, peak, pid, err
}

var errOOMKilled = errors.New("its container was OOMKilled")

// killedForMemory is errOOMKilled once a container of the operator's last ended OOMKilled.
func killedForMemory(ctx context.Context, d *e2e.KindDeployment) error {
	pods, _ := d.Pods(ctx) // what cannot be read now is read at the next poll
	for _, p := range pods {
		for _, s := range p.Status.ContainerStatuses {
			for _, state := range []corev1.ContainerState{s.State, s.LastTerminationState} {
				if t := state.Terminated; t != nil && t.Reason == "OOMKilled" {
					return fmt.Errorf("%w (restarted %d times), in Pod %s", errOOMKilled, s.RestartCount, p.Name)
				}
			}
		}
	}
	return nil
}

// restarts says how often the operator's container restarted, and why last.
func restarts(ctx context.Context, d *e2e.KindDeployment) string {
	pods, err := d.Pods(ctx)
	if err != nil || len(pods) == 0 || len(pods[0].Status.ContainerStatuses) == 0 {
		return "?"
	}
	s := pods[0].Status.ContainerStatuses[0]
	if t := s.LastTerminationState.Terminated; t != nil {
		return fmt.Sprintf("%d (last: %s)", s.RestartCount, t.Reason)
	}
	return strconv.Itoa(int(s.RestartCount))
}
