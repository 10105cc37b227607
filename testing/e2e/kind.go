package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	"example.com/operator-demo/testing/harness/cluster"
	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
	"example.com/operator-demo/testing/harness/poll"
)

// The environment that testing/e2e/kind.sh sets for Kind.
const (
	// ManifestsEnv names the file of the operator's manifests, rendered with its image.
	ManifestsEnv = "E2E_MANIFESTS"
	// AuditLogEnv names the API server's audit log (written with AuditPolicy), on this machine.
	AuditLogEnv = "E2E_AUDIT_LOG"
	// KindNodeEnv names the container of the kind cluster's node: the operator is killed on it,
	// an image is loaded into it, and its API server restarted through it.
	KindNodeEnv = "E2E_KIND_NODE"
)

// KindDeployment is the operator deployed on the kind cluster in $KUBECONFIG, with what only its
// node can do.
type KindDeployment struct {
	*Deployment
	node string
}

// Kind is the cluster in $KUBECONFIG, where `make test-e2e E2E_PROVIDER=kind` has loaded the
// operator's image: the operator deployed there (DeployOnKind).
func Kind(ctx context.Context, subject operator.Subject) (*cluster.Cluster, []byte, error) {
	d, err := DeployOnKind(ctx, subject)
	if err != nil {
		return nil, nil, err
	}
	return New(d.Config, d.Client, d.Operator, d.Stop), nil, nil
}

// DeployOnKind deploys the operator from $E2E_MANIFESTS (Deploy) on the kind cluster in
// $KUBECONFIG, its writes counted from the API server's audit log in $E2E_AUDIT_LOG, and kills it
// on the node $E2E_KIND_NODE.
func DeployOnKind(ctx context.Context, subject operator.Subject) (*KindDeployment, error) {
	cfg, err := config.GetConfig()
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for _, name := range []string{ManifestsEnv, AuditLogEnv, KindNodeEnv} {
		if env[name] = os.Getenv(name); env[name] == "" {
			return nil, fmt.Errorf("%s is not set: `make test-e2e-kind` (testing/e2e/kind.sh) sets it", name)
		}
	}
	rendered, err := os.ReadFile(env[ManifestsEnv])
	if err != nil {
		return nil, err
	}
	logs, err := os.MkdirTemp("", "operator-demo-e2e-logs-")
	if err != nil {
		return nil, err
	}
	k := &KindDeployment{node: env[KindNodeEnv]}
	opts := Options{AuditLog: env[AuditLogEnv], LogDir: logs, Kill: CtrKill(k.exec("ctr", "--namespace", "k8s.io"))}
	if k.Deployment, err = Deploy(ctx, cfg, subject, rendered, opts); err != nil {
		return nil, err
	}
	return k, nil
}

// exec is the command that runs args on the node.
func (k *KindDeployment) exec(args ...string) []string {
	return append([]string{"docker", "exec", "-i", k.node}, args...)
}

// run runs args on this machine, stdin from in, and returns what they print on stdout; an error
// says what they printed on stderr.
func run(ctx context.Context, in []byte, args ...string) ([]byte, error) {
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
func (k *KindDeployment) ImportImage(ctx context.Context, dockerfile []byte, name string) error {
	dir, err := controlplane.Find(filepath.Join("config", "default"))
	if err != nil {
		return err
	}
	if _, err := run(ctx, dockerfile, "docker", "build", "-q", "-t", name, "-f", "-", filepath.Dir(filepath.Dir(dir))); err != nil {
		return err
	}
	archive, err := run(ctx, nil, "docker", "save", name)
	if err != nil {
		return err
	}
	_, err = run(ctx, archive, k.exec("ctr", "--namespace", "k8s.io", "images", "import", "--digests", "-")...)
	return err
}

// RestartAPIServer stops the node's kube-apiserver container, which the kubelet then starts
// again, and returns how long the API server was away: from the stop until it is ready again,
// within Rollout.
func (k *KindDeployment) RestartAPIServer() (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Rollout)
	defer cancel()
	apiserver := func(ctx context.Context) (string, error) {
		id, err := run(ctx, nil, k.exec("crictl", "ps", "-q", "--name", "^kube-apiserver$")...)
		return strings.TrimSpace(string(id)), err
	}
	id, err := apiserver(ctx)
	if err != nil {
		return 0, err
	}
	if id == "" {
		return 0, fmt.Errorf("no kube-apiserver container runs on %s", k.node)
	}
	cs, err := kubernetes.NewForConfig(k.Config)
	if err != nil {
		return 0, err
	}
	stopped := time.Now()
	if _, err := run(ctx, nil, k.exec("crictl", "stop", id)...); err != nil {
		return 0, err
	}
	err = poll.Until(ctx, 100*time.Millisecond, Rollout, func(ctx context.Context) error {
		now, err := apiserver(ctx)
		if err != nil {
			return err
		}
		if now == "" || now == id {
			return fmt.Errorf("no new kube-apiserver container on %s yet", k.node)
		}
		return cs.RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	})
	return time.Since(stopped), err
}
