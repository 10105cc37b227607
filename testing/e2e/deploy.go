package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/poll"
)

// Rollout bounds how long the operator's Deployment may take to roll out: its Pod scheduled,
// started and Ready through its readiness probe.
const Rollout = 2 * time.Minute

// FirstRollout bounds the first rollout of the operator on a cluster, where its Secret of the
// webhook's certificate is still empty: Rollout, and the time the certificate the operator issues
// takes to reach its Pod, Ready only once it serves the webhook with it. The kubelet writes a
// changed Secret into the volumes that mount it at its next sync of the Pod (its sync period, a
// minute, and up to half of it again), and cert-controller's rotator looks for the files at
// backoff steps of 1, 2, 4 … 128 s, each up to doubled: a look past 90 s comes by 4 min 15 s.
const FirstRollout = Rollout + 4*time.Minute

// Deployment is the operator deployed from its rendered manifests, as in production, on a kind
// cluster whose node has its image (Deploy), with what only that node can do.
type Deployment struct {
	Manifests
	// Client and Config reach the cluster as an administrator.
	Client client.Client
	Config *rest.Config
	// Operator is the deployed operator (Deploy): stopped by scaling its Deployment to 0, started
	// by scaling it back, killed (kill -9) on its node.
	Operator *operator.Operator
	// OperatorConfig authenticates as the operator's ServiceAccount; MetricsToken is a token
	// that may read its metrics, as Prometheus's would.
	OperatorConfig *rest.Config
	MetricsToken   string
	cs             kubernetes.Interface
	// node is the container of the kind cluster's node.
	node string
}

// Deploy deploys the operator as testing/e2e/kind.sh has prepared it: its manifests, rendered with
// its image, from the file $E2E_MANIFESTS, applied (Install) to the kind cluster in $KUBECONFIG;
// its rollout waited for (WaitRollout, within FirstRollout: a Pod that cannot become Ready fails it, saying why), then
// its metrics; its writes counted from the API server's audit log at $E2E_AUDIT_LOG (written with
// AuditPolicy); its containers killed, an image loaded and the API server restarted on the node,
// the container $E2E_KIND_NODE.
func Deploy(ctx context.Context, subject operator.Subject) (*Deployment, error) {
	env := map[string]string{}
	for _, name := range []string{"E2E_MANIFESTS", "E2E_AUDIT_LOG", "E2E_KIND_NODE"} {
		if env[name] = os.Getenv(name); env[name] == "" {
			return nil, fmt.Errorf("%s is not set: `make test-e2e-kind` (testing/e2e/kind.sh) sets it", name)
		}
	}
	rendered, err := os.ReadFile(env["E2E_MANIFESTS"])
	if err != nil {
		return nil, fmt.Errorf("read the rendered manifests: %w", err)
	}
	d := &Deployment{node: env["E2E_KIND_NODE"]}
	if d.Manifests, err = ReadManifests(rendered); err != nil {
		return nil, fmt.Errorf("%s: %w", env["E2E_MANIFESTS"], err)
	}
	if d.Config, err = config.GetConfig(); err != nil {
		return nil, fmt.Errorf("the kind cluster's kubeconfig: %w", err)
	}
	if d.Client, err = client.New(d.Config, client.Options{Scheme: subject.Scheme}); err != nil {
		return nil, fmt.Errorf("client for %s: %w", d.Config.Host, err)
	}
	if d.cs, err = kubernetes.NewForConfig(d.Config); err != nil {
		return nil, fmt.Errorf("clientset for %s: %w", d.Config.Host, err)
	}
	if d.OperatorConfig, d.MetricsToken, err = Install(ctx, d.Client, d.Config, d.Manifests); err != nil {
		return nil, err
	}
	if err := WaitRollout(ctx, d.Client, d.Namespace, d.Deployment.Name, FirstRollout); err != nil {
		return nil, fmt.Errorf("%w%s", err, d.logs(20))
	}
	d.Operator = operator.New(subject, operator.Controls{
		Metrics: func() ([]*dto.MetricFamily, error) {
			return onMetrics(context.Background(), d, func(ctx context.Context, url string) ([]*dto.MetricFamily, error) {
				return Scrape(ctx, url, d.MetricsToken)
			})
		},
		Writes: AuditWrites(env["E2E_AUDIT_LOG"], serviceaccount.MakeUsername(d.Namespace, d.ServiceAccount)),
		// Not until Ready: the operator works from its start, and the readiness probe's initial
		// delay would let it work unseen; Up waits for its metrics.
		Start: func() error { return d.setReplicas(context.Background(), ptr.Deref(d.Deployment.Spec.Replicas, 1)) },
		Stop:  func() error { return d.Scale(context.Background(), 0) },
		Kill:  func() error { return d.kill(context.Background()) },
		Logs:  func() string { return d.logs(40) },
	})
	// It runs already: Up only waits until its controllers report.
	if err := d.Operator.Up(); err != nil {
		return nil, fmt.Errorf("%w%s", err, d.logs(20))
	}
	return d, nil
}

// Scale sets the Deployment's replicas and waits for the rollout, then for the Pods scaled down
// to be gone: the next spec sees only the replicas it asked for.
func (d *Deployment) Scale(ctx context.Context, replicas int32) error {
	if err := d.setReplicas(ctx, replicas); err != nil {
		return err
	}
	if replicas > 0 {
		if err := WaitRollout(ctx, d.Client, d.Namespace, d.Deployment.Name, Rollout); err != nil {
			return err
		}
	}
	return d.podsDownTo(ctx, replicas)
}

// podsDownTo waits until no more than replicas Pods of the Deployment are left: those scaled down
// are gone, within their terminationGracePeriodSeconds and a margin.
func (d *Deployment) podsDownTo(ctx context.Context, replicas int32) error {
	return poll.Until(ctx, 200*time.Millisecond, time.Minute, func(ctx context.Context) error {
		pods, err := d.Pods(ctx)
		if err == nil && len(pods) > int(replicas) {
			err = fmt.Errorf("%d Pods of Deployment %s/%s still there, %d wanted", len(pods), d.Namespace, d.Deployment.Name, replicas)
		}
		return err
	})
}

func (d *Deployment) setReplicas(ctx context.Context, replicas int32) error {
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: d.Deployment.Name}}
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	if err := d.Client.Patch(ctx, deploy, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("scale Deployment %s to %d: %w", client.ObjectKeyFromObject(deploy), replicas, err)
	}
	return nil
}

// Pods are the Deployment's Pods, those terminating included.
func (d *Deployment) Pods(ctx context.Context) ([]corev1.Pod, error) {
	pods := &corev1.PodList{}
	err := d.Client.List(ctx, pods, client.InNamespace(d.Namespace), client.MatchingLabels(d.Deployment.Spec.Selector.MatchLabels))
	return pods.Items, err
}

// serving is the Pod that serves the operator's metrics now, as `kubectl port-forward service/NAME`
// chooses one: a Ready Pod of the Deployment's (the Pods its metrics Service selects), else one
// that runs.
func (d *Deployment) serving(ctx context.Context) (string, error) {
	pods, err := d.Pods(ctx)
	if err != nil {
		return "", err
	}
	pods = slices.DeleteFunc(pods, func(p corev1.Pod) bool { return p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning })
	if len(pods) == 0 {
		return "", fmt.Errorf("no Pod of Deployment %s/%s runs", d.Namespace, d.Deployment.Name)
	}
	if i := slices.IndexFunc(pods, func(p corev1.Pod) bool {
		return slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
			return c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
		})
	}); i >= 0 {
		return pods[i].Name, nil
	}
	return pods[0].Name, nil
}

// kill is the operator's kill -9: every container of its Pods killed, then its Deployment scaled
// to 0 and those Pods deleted with a grace period of 0, so that it stays down until started
// again. Deleting a Pod with a grace period of 0 alone would not do: the kubelet still sends
// SIGTERM and waits at least 2 seconds (kuberuntime's minimumGracePeriodInSeconds), and the
// manager releases its lease in that time. Deleting them gracefully would not either: the kubelet
// has started the killed container again, and keeps it up to the Pod's
// terminationGracePeriodSeconds, time enough to take the dead leader's lease and go on working.
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
	if err := d.setReplicas(ctx, 0); err != nil {
		return err
	}
	for i := range pods {
		if err := d.Client.Delete(ctx, &pods[i], client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("delete the killed Pod %s: %w", client.ObjectKeyFromObject(&pods[i]), err)
		}
	}
	return d.podsDownTo(ctx, 0)
}

// logs is the last n lines of the current log of every container of the Deployment's Pods, and
// of the previous one of a container that restarted, each after its name. kind.sh exports them
// whole, with the node's, when a suite fails.
func (d *Deployment) logs(n int64) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pods, err := d.Pods(ctx)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range pods {
		for _, s := range p.Status.ContainerStatuses {
			for _, previous := range []bool{true, false} {
				if previous && s.RestartCount == 0 {
					continue
				}
				opts := &corev1.PodLogOptions{Container: s.Name, Previous: previous, TailLines: &n}
				log, err := d.cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, opts).DoRaw(ctx)
				if err != nil {
					log = []byte(err.Error())
				}
				fmt.Fprintf(&b, "\n--- last lines of Pod %s, container %s (previous: %t)\n%s\n",
					p.Name, s.Name, previous, bytes.TrimRight(log, "\n"))
			}
		}
	}
	return b.String()
}

// Tail is the last n lines of log.
func Tail(log string, n int) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
