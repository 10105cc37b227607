package harness

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	"example.com/operator-demo/controllers"
	"example.com/operator-demo/testing/controlplane"
)

// ProviderEnv names the environment variable that chooses the e2e tier's cluster: "local" (a
// LocalCluster started here, the operator a process of its own) or "kind" (the cluster in
// $KUBECONFIG, the operator deployed into it by `make test-e2e`, metrics at $E2E_METRICS_URL).
const ProviderEnv = "E2E_PROVIDER"

// The e2e tier's providers.
const (
	ProviderLocal = "local"
	ProviderKind  = "kind"
)

// Names in config/default, as kustomize renders them.
const (
	operatorNamespace = "operator-demo-system"
	metricsReader     = "e2e-metrics-reader"
)

// e2eCluster is the e2e tier: one operator for the whole cluster, running as in production,
// as its own process under its own ServiceAccount with exactly config/rbac. Scenarios see it
// only through the API server and its metrics endpoint.
type e2eCluster struct {
	client   client.Client
	operator *Operator
	stop     func() error
}

func connectE2E(ctx context.Context) (*e2eCluster, error) {
	switch provider := os.Getenv(ProviderEnv); provider {
	case "", ProviderLocal:
		return startLocalE2E(ctx)
	case ProviderKind:
		return connectKind(ctx)
	default:
		return nil, fmt.Errorf("%s=%q: want local or kind", ProviderEnv, provider)
	}
}

func (e *e2eCluster) Client() client.Client { return e.client }

// RunOperator returns the cluster's one operator: the e2e tier cannot rewire it per namespace.
func (e *e2eCluster) RunOperator(_ string, wiring controllers.Wiring) (*Operator, error) {
	if wiring != controllers.WatchSamplesAndConfigMaps {
		return nil, fmt.Errorf("the e2e tier runs the production wiring only; label the scenario %q", NeedsInProcessOperator)
	}
	return e.operator, nil
}

func (e *e2eCluster) Stop() error { return e.stop() }

// startLocalE2E runs the e2e tier on a LocalDeployment of bin/manager (or $E2E_OPERATOR_BINARY).
func startLocalE2E(ctx context.Context) (*e2eCluster, error) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return nil, err
	}
	binary := filepath.Join(root, "bin", "manager")
	if b := os.Getenv("E2E_OPERATOR_BINARY"); b != "" {
		binary = b
	}
	d, err := StartLocalDeployment(ctx, filepath.Join(root, "reports", "e2e"), binary)
	if err != nil {
		return nil, err
	}
	return &e2eCluster{client: d.Client, operator: d.Operator, stop: d.Stop}, nil
}

// LocalDeployment is config/default installed into a LocalCluster, with the operator binary
// running as its Deployment would: a process of its own, authenticated as its ServiceAccount, so
// that it can do exactly what config/rbac grants. Its metrics are read as Prometheus would read
// them, with the token of a ServiceAccount bound to config/rbac's metrics-reader role.
type LocalDeployment struct {
	*LocalCluster
	// Client is a cluster administrator's.
	Client   client.Client
	Operator *Operator
	// OperatorConfig authenticates as the operator's ServiceAccount.
	OperatorConfig *rest.Config
	// MetricsToken is the token of a ServiceAccount bound to the metrics-reader role.
	MetricsToken string
	// Deployment is config/default's Deployment, as rendered: not created, the process plays it.
	Deployment *unstructured.Unstructured
	proc       *operatorProcess
	replicas   []*operatorProcess
}

// StartLocalDeployment starts a LocalCluster in dir and deploys binary into it.
func StartLocalDeployment(ctx context.Context, dir, binary string) (*LocalDeployment, error) {
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("no operator binary at %s: run `make build`", binary)
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		return nil, err
	}
	lc, err := StartLocalCluster(dir)
	if err != nil {
		return nil, err
	}
	d, err := deploy(ctx, lc, filepath.Join(root, "config", "default"), binary)
	if err != nil {
		// deploy stops the operator process it started when it fails.
		return nil, errors.Join(err, lc.Stop())
	}
	return d, nil
}

// Stop stops the operator and its replicas, then the cluster.
func (d *LocalDeployment) Stop() error {
	errs := []error{d.proc.down()}
	for _, r := range d.replicas {
		errs = append(errs, r.down())
	}
	return errors.Join(append(errs, d.LocalCluster.Stop())...)
}

// MetricsURL is where the first replica serves its metrics.
func (d *LocalDeployment) MetricsURL() string {
	return d.proc.metricsURL()
}

// StartReplica starts one more operator process, as a Deployment with one more replica would:
// same ServiceAccount, same flags, its own ports and log. Leader election decides which one works.
func (d *LocalDeployment) StartReplica() (*Operator, error) {
	n := len(d.replicas) + 2
	proc := &operatorProcess{binary: d.proc.binary, kubeconfig: d.proc.kubeconfig, log: filepath.Join(d.Dir, fmt.Sprintf("operator-%d.log", n))}
	op := d.operator(proc)
	d.replicas = append(d.replicas, proc) // stopped with the deployment, whether it came up or not
	if err := op.Up(); err != nil {
		return nil, err
	}
	return op, nil
}

// operator is the Operator handle of one operator process.
func (d *LocalDeployment) operator(proc *operatorProcess) *Operator {
	return &Operator{
		metrics: func() ([]*dto.MetricFamily, error) { return scrape(proc.metricsURL(), d.MetricsToken) },
		up:      proc.up,
		down:    proc.down,
		kill:    proc.kill,
		logs:    func() []string { return append(d.Logs(), proc.logFile) },
		shared:  true,
	}
}

func deploy(ctx context.Context, lc *LocalCluster, kustomizeDir, binary string) (*LocalDeployment, error) {
	c, err := NewClient(lc.Config)
	if err != nil {
		return nil, err
	}
	deployment, err := install(ctx, c, lc.Kubectl(), kustomizeDir)
	if err != nil {
		return nil, err
	}
	operatorToken, err := serviceAccountToken(ctx, lc.Config, operatorNamespace, deployment.serviceAccount)
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(lc.Dir, "operator.kubeconfig")
	if err := WriteKubeconfig(kubeconfig, tokenConfig(lc.Config, operatorToken)); err != nil {
		return nil, err
	}
	metricsToken, err := metricsReaderToken(ctx, c, lc.Config)
	if err != nil {
		return nil, err
	}
	d := &LocalDeployment{
		LocalCluster:   lc,
		Client:         c,
		OperatorConfig: tokenConfig(lc.Config, operatorToken),
		MetricsToken:   metricsToken,
		Deployment:     deployment.deployment,
		proc:           &operatorProcess{binary: binary, kubeconfig: kubeconfig, log: filepath.Join(lc.Dir, "operator.log")},
	}
	d.Operator = d.operator(d.proc)
	if err := d.Operator.Up(); err != nil {
		return nil, errors.Join(err, d.proc.down())
	}
	return d, nil
}

// connectKind attaches to the cluster in $KUBECONFIG, where `make test-e2e E2E_PROVIDER=kind` has
// deployed the operator and forwards its metrics port to $E2E_METRICS_URL.
func connectKind(ctx context.Context) (*e2eCluster, error) {
	cfg, err := config.GetConfig()
	if err != nil {
		return nil, err
	}
	url := os.Getenv("E2E_METRICS_URL")
	if url == "" {
		return nil, errors.New("E2E_METRICS_URL is not set: `make test-e2e` port-forwards the metrics service and sets it")
	}
	c, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	token, err := metricsReaderToken(ctx, c, cfg)
	if err != nil {
		return nil, err
	}
	unsupported := func() error {
		return errors.New("the kind provider does not stop the operator; label the scenario " + NeedsOperatorProcess + " or " + NeedsKill)
	}
	return &e2eCluster{
		client: c,
		operator: &Operator{
			metrics: func() ([]*dto.MetricFamily, error) { return scrape(url, token) },
			down:    unsupported, up: unsupported, kill: unsupported,
			logs:    func() []string { return nil },
			shared:  true,
			running: true,
		},
		stop: func() error { return nil },
	}, nil
}

// installed is what install learned from the rendered manifests.
type installed struct {
	serviceAccount string
	deployment     *unstructured.Unstructured
}

// install renders kustomizeDir with kubectl's built-in kustomize and creates every object except
// the CRDs (envtest installed them) and the Deployment (the operator runs as a local process).
func install(ctx context.Context, c client.Client, kubectl, kustomizeDir string) (installed, error) {
	var out installed
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, kubectl, "kustomize", kustomizeDir)
	cmd.Stderr = &stderr
	rendered, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("kubectl kustomize %s: %w: %s", kustomizeDir, err, stderr.String())
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return out, fmt.Errorf("decode %s: %w", kustomizeDir, err)
		}
		switch obj.GetKind() {
		case "":
			continue
		case "CustomResourceDefinition":
			continue
		case "Deployment":
			sa, _, _ := unstructured.NestedString(obj.Object, "spec", "template", "spec", "serviceAccountName")
			out.serviceAccount, out.deployment = sa, obj
			continue
		}
		if err := c.Create(ctx, obj); err != nil {
			return out, fmt.Errorf("create %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	if out.serviceAccount == "" {
		return out, fmt.Errorf("%s renders no Deployment with a serviceAccountName", kustomizeDir)
	}
	return out, nil
}

// metricsReaderToken creates a ServiceAccount bound to config/rbac's metrics-reader role and
// returns a token for it: the credentials a Prometheus would scrape with.
func metricsReaderToken(ctx context.Context, c client.Client, cfg *rest.Config) (string, error) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: metricsReader, Namespace: operatorNamespace}}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: metricsReader},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "operator-demo-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: metricsReader, Namespace: operatorNamespace}},
	}
	for _, obj := range []client.Object{sa, binding} {
		if err := client.IgnoreAlreadyExists(c.Create(ctx, obj)); err != nil {
			return "", fmt.Errorf("create %s: %w", obj.GetName(), err)
		}
	}
	return serviceAccountToken(ctx, cfg, operatorNamespace, metricsReader)
}

func serviceAccountToken(ctx context.Context, cfg *rest.Config, namespace, name string) (string, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", err
	}
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(4 * 3600))},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return tr.Status.Token, nil
}

// tokenConfig reaches cfg's API server, trusting its CA, as the bearer of token.
func tokenConfig(cfg *rest.Config, token string) *rest.Config {
	return &rest.Config{Host: cfg.Host, TLSClientConfig: rest.TLSClientConfig{CAData: cfg.CAData}, BearerToken: token}
}

// WriteKubeconfig writes a kubeconfig file for cfg: its server and CA, and its bearer token or
// client certificate.
func WriteKubeconfig(path string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken, ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "user"}
	kc.CurrentContext = "local"
	return clientcmd.WriteToFile(*kc, path)
}

// operatorProcess is bin/manager run as the production Deployment would run it, on loopback ports.
type operatorProcess struct {
	binary, kubeconfig, log string
	metricsPort, probePort  int
	proc                    *process
	// logFile is the current run's log: log for the first run, a numbered sibling after a restart.
	logFile string
}

func (o *operatorProcess) metricsURL() string {
	return fmt.Sprintf("https://127.0.0.1:%d/metrics", o.metricsPort)
}

// up starts the operator and waits until it is ready.
func (o *operatorProcess) up() error {
	if o.metricsPort == 0 {
		var err error
		if o.metricsPort, err = FreePort(); err != nil {
			return err
		}
		if o.probePort, err = FreePort(); err != nil {
			return err
		}
	}
	o.logFile = o.log
	if o.proc != nil {
		o.logFile = strings.TrimSuffix(o.log, ".log") + fmt.Sprintf("-%d.log", time.Now().UnixNano())
	}
	logFile := o.logFile
	var err error
	o.proc, err = startProcess("operator", logFile, o.binary,
		"--kubeconfig="+o.kubeconfig,
		"--leader-elect",
		"--leader-election-namespace="+operatorNamespace,
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", o.metricsPort),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", o.probePort),
	)
	if err != nil {
		return err
	}
	ready := fmt.Sprintf("http://127.0.0.1:%d/readyz", o.probePort)
	probe := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := probe.Get(ready); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-o.proc.done:
			return fmt.Errorf("operator exited before it was ready (%v), see %s", o.proc.err, logFile) //nolint:errorlint // an exit status, maybe nil
		case <-time.After(100 * time.Millisecond):
		}
	}
	o.proc.kill()
	return fmt.Errorf("operator not ready within 30s, killed; see %s", logFile)
}

func (o *operatorProcess) down() error {
	if o.proc == nil {
		return nil
	}
	return o.proc.stop(30 * time.Second)
}

func (o *operatorProcess) kill() error {
	o.proc.kill()
	return nil
}

// FreePort is a TCP port on 127.0.0.1 that nothing listens on, for now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, fmt.Errorf("listener address %v is not TCP", l.Addr())
	}
	return addr.Port, nil
}

// metricsClient reads the operators' metrics endpoints, served over HTTPS with the operator's
// self-signed certificate, on loopback. One client for every scrape: its connections are reused.
var metricsClient = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the operator's self-signed certificate, on loopback
}}

// MetricsStatus is the HTTP status of GET url with token as bearer (none when empty).
func MetricsStatus(ctx context.Context, url, token string) (int, error) {
	resp, err := getMetrics(ctx, url, token)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

func getMetrics(ctx context.Context, url, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return metricsClient.Do(req)
}

// scrape reads a metrics endpoint that authenticates callers by bearer token.
func scrape(url, token string) ([]*dto.MetricFamily, error) {
	resp, err := getMetrics(context.Background(), url, token)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	byName, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, err
	}
	families := make([]*dto.MetricFamily, 0, len(byName))
	for _, f := range byName {
		families = append(families, f)
	}
	return families, nil
}
