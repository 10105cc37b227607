package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/poll"
)

// Kind is the cluster in $KUBECONFIG, where `make test-e2e E2E_PROVIDER=kind` has loaded the
// operator's image: the operator deployed there (Deploy).
func Kind(ctx context.Context, subject operator.Subject) (*cluster.Cluster, []byte, error) {
	d, err := Deploy(ctx, subject)
	if err != nil {
		return nil, nil, err
	}
	// Nothing to release: the operator stays deployed, the cluster is kind.sh's.
	return New(d.Config, d.Client, d.Operator, func() error { return nil }), nil, nil
}

func (d *Deployment) onNode(args ...string) []string {
	return append([]string{"docker", "exec", "-i", d.node}, args...)
}

// Run runs args on this machine, stdin from in, and returns what they print on stdout; an error
// says what they printed on stderr.
func Run(ctx context.Context, in []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out.Bytes(), nil
}

// ImportImage builds the image dockerfile describes, with the repository as its build context,
// under name, and loads it into the node's containerd, as `kind load docker-image` does.
func (d *Deployment) ImportImage(ctx context.Context, dockerfile []byte, name string) error {
	dir, err := controlplane.Find(filepath.Join("config", "default"))
	if err != nil {
		return err
	}
	if _, err := Run(ctx, dockerfile, "docker", "build", "-q", "-t", name, "-f", "-", filepath.Dir(filepath.Dir(dir))); err != nil {
		return err
	}
	archive, err := Run(ctx, nil, "docker", "save", name)
	if err != nil {
		return err
	}
	_, err = Run(ctx, archive, d.onNode("ctr", "--namespace", "k8s.io", "images", "import", "--digests", "-")...)
	return err
}

// KillPod kills every container of pod with SIGKILL, on the node (ctr task kill), as kill -9
// would: the kubelet then starts them again, as it would after a crash.
func (d *Deployment) KillPod(ctx context.Context, pod *corev1.Pod) error {
	for _, s := range pod.Status.ContainerStatuses {
		if s.State.Running == nil {
			continue
		}
		_, id, _ := strings.Cut(s.ContainerID, "://")
		if _, err := Run(ctx, nil, d.onNode("ctr", "--namespace", "k8s.io", "task", "kill", "--signal", "SIGKILL", id)...); err != nil {
			return fmt.Errorf("kill container %s of Pod %s: %w", s.Name, client.ObjectKeyFromObject(pod), err)
		}
	}
	return nil
}

// RestartAPIServer stops the node's kube-apiserver container, which the kubelet then starts
// again, and returns how long the API server was away: from the stop until it is ready again,
// within Rollout.
func (d *Deployment) RestartAPIServer() (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Rollout)
	defer cancel()
	id, err := Run(ctx, nil, d.onNode("crictl", "ps", "-q", "--name", "^kube-apiserver$")...)
	if err != nil {
		return 0, err
	}
	if len(bytes.TrimSpace(id)) == 0 {
		return 0, fmt.Errorf("no kube-apiserver container runs on %s", d.node)
	}
	stopped := time.Now()
	// crictl stop returns once the container has stopped: the API server that answers next is
	// the one the kubelet started again.
	if _, err := Run(ctx, nil, d.onNode("crictl", "stop", string(bytes.TrimSpace(id)))...); err != nil {
		return 0, err
	}
	err = poll.Until(ctx, 100*time.Millisecond, Rollout, func(ctx context.Context) error {
		return d.cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	})
	return time.Since(stopped), err
}
