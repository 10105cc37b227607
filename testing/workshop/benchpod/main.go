// Command benchpod measures the operator as a Pod of config/default on a local node: its memory,
// as its cgroup counts it, at thousands of converged Samples, against its limit; it prints a
// Markdown table. `make bench-pod` (as root) runs it; BENCHMARKS.md keeps its output.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"go.uber.org/zap/zapcore"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"example.com/operator-demo/scenarios/samples"
	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/node"
	"example.com/operator-demo/testing/poll"
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

// parseCounts reads a comma-separated list of counts: a JSON array's numbers.
func parseCounts(s string) ([]int, error) {
	var counts []int
	err := json.Unmarshal([]byte("["+s+"]"), &counts)
	if err == nil && len(counts) == 0 {
		err = errors.New("no count")
	}
	if err != nil {
		return nil, fmt.Errorf("-counts %q: %w", s, err)
	}
	return counts, nil
}

func progress(format string, args ...any) { fmt.Fprintf(os.Stderr, "bench-pod: "+format+"\n", args...) }

// The operator's client limits while it creates the Samples' ConfigMaps: at the manifest's (QPS
// 50), 20,000 Samples' 40,000 writes take over 13 minutes, and what the operator holds in memory
// depends on the objects it caches, not on how fast they came. Each measurement is taken after a
// restart at the manifest's own flags, over the converged Samples.
const creationQPS, creationBurst = "1000", "2000"

// podMemory deploys the operator as a Pod on a local node and measures it at each count of
// converged Samples in turn, after a restart at the manifest's flags: its container's memory as
// its cgroup counts it (usage, working set, the peak since the restart) and its process's RSS.
// limit replaces the manifest's memory limit ("": keep it), to measure the operator's need above
// it, or to see the manifest's hold.
func podMemory(ctx context.Context, counts []int, limit string) error {
	started := time.Now()
	d, err := node.StartDeployment(ctx, filepath.Join("reports", "bench-pod"), samples.Operator)
	if err != nil {
		return err
	}
	defer func() { _ = d.Stop() }()
	progress("pod: the operator deployed on a local node in %s", time.Since(started).Round(time.Second))
	pods, err := d.Pods(ctx)
	if err != nil || len(pods) != 1 {
		return errors.Join(fmt.Errorf("%d Pods of the operator", len(pods)), err)
	}
	manifest := pods[0].Spec.Containers[0]
	if limit == "" {
		limit = manifest.Resources.Limits.Memory().String()
	}
	if err := d.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}); err != nil {
		return err
	}
	cfg := rest.CopyConfig(d.Config)
	cfg.QPS, cfg.Burst = 2000, 4000
	admin, err := client.New(cfg, client.Options{Scheme: samples.Operator.Scheme})
	if err != nil {
		return err
	}
	fmt.Printf("\n| Converged Samples | Container memory: usage, working set (peak since start) | Operator RSS (anon + file) | Limit | Restarts | A restart to every Sample reconciled (its rollout included) |\n|---|---|---|---|---|---|\n")
	have := 0
	for _, n := range counts {
		row, err := atCount(ctx, d, admin, manifest, have, n, limit)
		if errors.Is(err, errOOMKilled) {
			// More Samples would only be killed sooner.
			fmt.Printf("| %d | OOMKilled: %v | — | %s | %s | never |\n", n, err, limit, restarts(ctx, d))
			break
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

// atCount brings the Samples of the bench namespace from have to n, has the operator converge them
// at raised client limits, restarts it at the manifest's flags and the memory limit, and measures
// it: a row of the table.
func atCount(ctx context.Context, d *node.Deployment, admin client.Client, manifest corev1.Container, have, n int, limit string) (string, error) {
	progress("pod: %d Samples: converging them at QPS %s", n, creationQPS)
	if err := rollTo(ctx, d, append(manifest.Args, "--kube-api-qps="+creationQPS, "--kube-api-burst="+creationBurst), limit); err != nil {
		return "", err
	}
	var g errgroup.Group
	g.SetLimit(32)
	for i := have; i < n; i++ {
		g.Go(func() error { return admin.Create(ctx, samples.New("bench", fmt.Sprintf("s%05d", i), "hello world")) })
	}
	if err := g.Wait(); err != nil {
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

// rollTo rolls the operator's Deployment to its manager container with args and the memory limit,
// and waits for the rollout.
func rollTo(ctx context.Context, d *node.Deployment, args []string, limit string) error {
	if err := d.Client.Patch(ctx, d.Manifests.Deployment.DeepCopy(), client.RawPatch(types.StrategicMergePatchType, managerPatch(args, limit))); err != nil {
		return err
	}
	return e2e.WaitRollout(ctx, d.Client, d.Namespace, d.Manifests.Deployment.GetName(), e2e.Rollout)
}

// managerPatch is the strategic merge patch that gives the manager container args and the memory
// limit.
func managerPatch(args []string, limit string) []byte {
	quoted, _ := json.Marshal(args) // strings always marshal
	return fmt.Appendf(nil, `{"spec":{"template":{"spec":{"containers":[{"name":"manager","args":%s,"resources":{"limits":{"memory":%q}}}]}}}}`, quoted, limit)
}

// measurePod reads, 20 s on, the operator container's memory from its cgroup and its process's
// RSS from /proc, formatted for the table.
func measurePod(ctx context.Context, d *node.Deployment) (string, error) {
	// Let the informers' initial lists go: the steady state is what stays.
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(20 * time.Second):
	}
	pods, err := d.Pods(ctx)
	if err != nil || len(pods) != 1 || len(pods[0].Status.ContainerStatuses) != 1 {
		return "", errors.Join(fmt.Errorf("want one Pod of the operator, with one container: %d", len(pods)), err)
	}
	_, id, _ := strings.Cut(pods[0].Status.ContainerStatuses[0].ContainerID, "://")
	cg, err := containerCgroup(id)
	if err != nil {
		return "", err
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

// cgroupMemory reads the memory cgroup cg, v1 or v2: its usage, its working set (usage less its
// inactive files), its peak usage, and its first process.
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

// containerCgroup is the memory cgroup of the container id, below the node's cgroupRoot.
func containerCgroup(id string) (string, error) {
	found := ""
	for _, root := range []string{"/sys/fs/cgroup/memory/operator-demo-node", "/sys/fs/cgroup/operator-demo-node"} {
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() && e.Name() == id {
				found = p
				return filepath.SkipAll
			}
			return nil
		})
		if found != "" {
			return found, nil
		}
	}
	return "", fmt.Errorf("no memory cgroup of container %s below the node's cgroupRoot", id)
}

// errOOMKilled is the operator's container killed for its memory.
var errOOMKilled = errors.New("its container was OOMKilled")

// killedForMemory is errOOMKilled once a container of the operator's last ended OOMKilled.
func killedForMemory(ctx context.Context, d *node.Deployment) error {
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
func restarts(ctx context.Context, d *node.Deployment) string {
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

func mib(bytes float64) string { return fmt.Sprintf("%.1f MiB", bytes/(1<<20)) }
