package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/e2e/metrics"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/poll"
)

// Rollout bounds how long the operator's Deployment may take to roll out: its Pod scheduled,
// started and Ready through its readiness probe.
const Rollout = 2 * time.Minute

// Options say what Deploy needs beyond the cluster and the manifests.
type Options struct {
	// AuditLog is the API server's audit log on this machine, written with AuditPolicy: the
	// operator's writes are counted from it.
	AuditLog string
	// Kill kills a container (as a Pod's status names it: containerd://<id>) with SIGKILL, on
	// its node: CtrKill. Nil: the operator cannot be killed.
	Kill func(ctx context.Context, containerID string) error
	// LogDir is where the operator's Pods' logs are written for a failed spec; ClusterLogs are
	// the cluster's own log files, listed with them.
	LogDir      string
	ClusterLogs []string
}

// Deployment is the operator deployed from its rendered manifests, as in production, on a cluster
// whose node has its image.
type Deployment struct {
	Manifests
	// Client and Config reach the cluster as an administrator.
	Client client.Client
	Config *rest.Config
	// Operator is the deployed operator: its metrics read through a forward of its metrics
	// Service, its writes from the API server's audit log; stopped by scaling its Deployment to
	// 0, started by scaling it back, killed (kill -9) through Options.Kill.
	Operator *operator.Operator
	// OperatorConfig authenticates as the operator's ServiceAccount; MetricsToken is a token
	// that may read its metrics, as Prometheus's would.
	OperatorConfig *rest.Config
	MetricsToken   string
	// MetricsURL is where the forward serves its metrics.
	MetricsURL string
	// Forward forwards the metrics Service.
	Forward *Forward
	opts    Options
	cs      *kubernetes.Clientset
}

// Deploy applies the operator's rendered manifests to the cluster cfg reaches (server-side, as
// `kubectl apply --server-side`), waits for its rollout (WaitRollout: a Pod that cannot become
// Ready fails it, saying why), forwards its metrics Service, and returns the operator deployed.
func Deploy(ctx context.Context, cfg *rest.Config, subject operator.Subject, rendered []byte, opts Options) (*Deployment, error) {
	m, err := ReadManifests(rendered)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: subject.Scheme})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	d := &Deployment{Manifests: m, Client: c, Config: cfg, opts: opts, cs: cs}
	for _, obj := range m.Objects {
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), client.FieldOwner("operator-demo-e2e"), client.ForceOwnership); err != nil {
			return nil, fmt.Errorf("apply %s %s: %w", obj.GetKind(), client.ObjectKeyFromObject(obj), err)
		}
	}
	if err := WaitRollout(ctx, c, m.Namespace, m.Deployment.GetName(), Rollout); err != nil {
		return nil, d.withLogs(err)
	}
	if d.MetricsToken, err = MetricsReaderToken(ctx, c, cfg, m); err != nil {
		return nil, err
	}
	token, err := ServiceAccountToken(ctx, cfg, m.Namespace, m.ServiceAccount)
	if err != nil {
		return nil, err
	}
	d.OperatorConfig = TokenConfig(cfg, token)
	if d.Forward, err = StartForward(ctx, cfg, c, m.Namespace, m.MetricsService, m.MetricsPort); err != nil {
		return nil, err
	}
	d.MetricsURL = "https://" + d.Forward.Addr + "/metrics"
	d.Operator = operator.New(subject, operator.Controls{
		Metrics: func() ([]*dto.MetricFamily, error) {
			families, err := metrics.Scrape(context.Background(), d.MetricsURL, d.MetricsToken)
			if err != nil {
				err = errors.Join(err, d.Forward.Failed())
			}
			return families, err
		},
		Writes: AuditWrites(opts.AuditLog, m.Username()),
		Start:  func() error { return d.start(context.Background()) },
		Stop:   func() error { return d.Scale(context.Background(), 0) },
		Kill:   func() error { return d.kill(context.Background()) },
		Logs:   func() string { return LastLines(d.logs(), 40) },
	})
	// It runs already: Up only waits until its controllers report.
	if err := d.Operator.Up(); err != nil {
		return nil, errors.Join(d.withLogs(err), d.Forward.Stop())
	}
	return d, nil
}

// Stop stops forwarding; the operator stays deployed.
func (d *Deployment) Stop() error { return d.Forward.Stop() }

// replicas are the manifest's.
func (d *Deployment) replicas() int32 {
	n, found, _ := unstructured.NestedInt64(d.Deployment.Object, "spec", "replicas")
	if !found {
		return 1
	}
	return int32(n)
}

// Scale sets the Deployment's replicas and waits: for the rollout, or, at 0, for its last Pod to
// be gone.
func (d *Deployment) Scale(ctx context.Context, replicas int32) error {
	deploy, err := d.setReplicas(ctx, replicas)
	if err != nil {
		return err
	}
	if replicas > 0 {
		return WaitRollout(ctx, d.Client, d.Namespace, deploy.Name, Rollout)
	}
	// Its terminationGracePeriodSeconds, and a margin.
	return poll.Until(ctx, 200*time.Millisecond, time.Minute, func(ctx context.Context) error {
		pods, err := d.Pods(ctx)
		if err == nil && len(pods) > 0 {
			err = fmt.Errorf("%d Pods of Deployment %s still there", len(pods), client.ObjectKeyFromObject(deploy))
		}
		return err
	})
}

// start scales the Deployment back to its replicas and waits until their containers run: not
// until they are Ready, since the operator works from its start and the readiness probe's
// initial delay would let it work unseen for seconds. A Pod that cannot run fails it at once.
func (d *Deployment) start(ctx context.Context) error {
	replicas := d.replicas()
	deploy, err := d.setReplicas(ctx, replicas)
	if err != nil {
		return err
	}
	return poll.Until(ctx, 100*time.Millisecond, Rollout, func(ctx context.Context) error {
		pods, err := d.Pods(ctx)
		if err != nil {
			return err
		}
		running := int32(0)
		for i := range pods {
			if trouble, final := podTrouble(&pods[i], nil); final {
				return poll.Stop(fmt.Errorf("start Deployment %s: Pod %s: %s", client.ObjectKeyFromObject(deploy), pods[i].Name, trouble))
			}
			if pods[i].DeletionTimestamp == nil && len(pods[i].Status.ContainerStatuses) > 0 &&
				!slices.ContainsFunc(pods[i].Status.ContainerStatuses, func(s corev1.ContainerStatus) bool { return s.State.Running == nil }) {
				running++
			}
		}
		if running < replicas {
			return fmt.Errorf("%d of %d Pods of Deployment %s running", running, replicas, client.ObjectKeyFromObject(deploy))
		}
		return nil
	})
}

// setReplicas patches the Deployment's replicas.
func (d *Deployment) setReplicas(ctx context.Context, replicas int32) (*appsv1.Deployment, error) {
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: d.Deployment.GetName()}}
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	if err := d.Client.Patch(ctx, deploy, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return nil, fmt.Errorf("scale Deployment %s to %d: %w", client.ObjectKeyFromObject(deploy), replicas, err)
	}
	return deploy, nil
}

// Pods are the Deployment's Pods, those terminating included.
func (d *Deployment) Pods(ctx context.Context) ([]corev1.Pod, error) {
	selector, found, err := unstructured.NestedStringMap(d.Deployment.Object, "spec", "selector", "matchLabels")
	if err != nil || !found {
		return nil, fmt.Errorf("the Deployment's spec.selector.matchLabels: %w", err)
	}
	pods := &corev1.PodList{}
	err = d.Client.List(ctx, pods, client.InNamespace(d.Namespace), client.MatchingLabels(selector))
	return pods.Items, err
}

// KillPod kills every container of pod with SIGKILL, on its node, as kill -9 would: the
// kubelet then starts them again, as it would after a crash.
func (d *Deployment) KillPod(ctx context.Context, pod *corev1.Pod) error {
	if d.opts.Kill == nil {
		return errors.New("this cluster's provider gives no way to kill a container on its node")
	}
	for _, s := range pod.Status.ContainerStatuses {
		if s.State.Running == nil {
			continue
		}
		if err := d.opts.Kill(ctx, s.ContainerID); err != nil {
			return fmt.Errorf("kill container %s of Pod %s: %w", s.Name, client.ObjectKeyFromObject(pod), err)
		}
	}
	return nil
}

// kill is the operator's kill -9: every container of its Pods killed, then its Deployment scaled
// to 0, so that it stays down until started again. Deleting a Pod with a grace period of 0 would
// not do: the kubelet still sends SIGTERM and waits at least 2 seconds (kuberuntime's
// minimumGracePeriodInSeconds), and the manager releases its lease in that time.
func (d *Deployment) kill(ctx context.Context) error {
	pods, err := d.Pods(ctx)
	if err != nil {
		return err
	}
	for i := range pods {
		if err := d.KillPod(ctx, &pods[i]); err != nil {
			return err
		}
	}
	return d.Scale(ctx, 0)
}

// logs writes the current and the previous log of every container of the Deployment's Pods into
// LogDir, and names those files and the cluster's logs.
func (d *Deployment) logs() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	files := append([]string{}, d.opts.ClusterLogs...)
	pods, err := d.Pods(ctx)
	if err != nil || os.MkdirAll(d.opts.LogDir, 0o755) != nil {
		return files
	}
	for _, p := range pods {
		for _, s := range p.Status.ContainerStatuses {
			for _, previous := range []bool{true, false} {
				if previous && s.RestartCount == 0 {
					continue
				}
				log, err := d.cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: s.Name, Previous: previous}).DoRaw(ctx)
				if err != nil {
					log = []byte(err.Error())
				}
				name := fmt.Sprintf("%s-%s.log", p.Name, s.Name)
				if previous {
					name = fmt.Sprintf("%s-%s-previous.log", p.Name, s.Name)
				}
				if os.WriteFile(filepath.Join(d.opts.LogDir, name), log, 0o644) == nil {
					files = append(files, filepath.Join(d.opts.LogDir, name))
				}
			}
		}
	}
	return files
}

// withLogs adds to err the end of the log of each container of the Deployment's Pods.
func (d *Deployment) withLogs(err error) error {
	if logs := LastLines(d.logs()[len(d.opts.ClusterLogs):], 20); logs != "" {
		return fmt.Errorf("%w%s", err, logs)
	}
	return err
}

// LastLines is the last n lines of each of files, after its name.
func LastLines(files []string, n int) string {
	var b strings.Builder
	for _, f := range files {
		log, err := os.ReadFile(f)
		if err != nil {
			log = []byte(err.Error())
		}
		fmt.Fprintf(&b, "\n--- last lines of %s\n%s\n", f, Tail(string(log), n))
	}
	return b.String()
}

// Tail is the last n lines of log.
func Tail(log string, n int) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// CtrKill is Options.Kill for a node where ctr, run as the words of ctr say (with its address and
// the k8s.io namespace), reaches the container runtime: `ctr task kill --signal SIGKILL <id>`.
func CtrKill(ctr []string) func(ctx context.Context, containerID string) error {
	return func(ctx context.Context, containerID string) error {
		_, id, _ := strings.Cut(containerID, "://")
		args := append(append([]string{}, ctr[1:]...), "task", "kill", "--signal", "SIGKILL", id)
		if out, err := exec.CommandContext(ctx, ctr[0], args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %w: %s", ctr[0], strings.Join(args, " "), err, out)
		}
		return nil
	}
}
