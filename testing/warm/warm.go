package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/operator"
)

// A warm control plane is one that `make envtest-up` started and left running (testing/workshop/envtestup),
// for the test-first loop: a run of the scenarios attaches to it instead of starting its own, which
// saves the seconds etcd and kube-apiserver take to start. Each spec still has its own namespace
// and its own operator, so nothing leaks from one run to the next.

// WarmFile is where a warm control plane's attachment is written, under the repository root.
var WarmFile = filepath.Join("bin", "envtest-up", "attachment.json")

// WarmEnv names another warm control plane's attachment file to attach to, for a run in a tree
// that has none of its own: `make test-first` hands its checkouts the repository's.
const WarmEnv = "ENVTEST_WARM"

// warmAnswerWithin is how long a warm control plane has to answer before it is taken for dead.
const warmAnswerWithin = 2 * time.Second

// Attachment is what a process needs to reach a shared envtest control plane.
func Attachment(cfg *rest.Config) ([]byte, error) {
	return json.Marshal(envtestAttachment{Host: cfg.Host, CA: cfg.CAData, Cert: cfg.CertData, Key: cfg.KeyData, QPS: cfg.QPS, Burst: cfg.Burst})
}

// configOf reaches the control plane that attachment (Attachment's) describes.
func configOf(attachment []byte) (*rest.Config, error) {
	var a envtestAttachment
	if err := json.Unmarshal(attachment, &a); err != nil {
		return nil, fmt.Errorf("read the control plane's attachment: %w", err)
	}
	return &rest.Config{Host: a.Host, TLSClientConfig: rest.TLSClientConfig{CAData: a.CA, CertData: a.Cert, KeyData: a.Key}, QPS: a.QPS, Burst: a.Burst}, nil
}

// attachWarm returns the warm control plane that path describes, with the CRDs of crdDir applied
// again (they may have changed since it started), and its attachment; nil, nil, nil when there is
// none. One that does not answer within warmAnswerWithin is passed over, with a line on stderr: the
// run then starts a control plane of its own, never waits on a dead one.
func attachWarm(path, crdDir string, subject operator.Subject) (*envtestCluster, []byte, error) {
	cfg, attachment, err := Warm(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "warm control plane (%s): %v; starting one of this run's own (make envtest-up replaces it)\n", path, err)
		return nil, nil, nil
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{crdDir}, ErrorIfPathMissing: true}); err != nil {
		return nil, nil, fmt.Errorf("apply the CRDs of %s to the warm control plane: %w", crdDir, err)
	}
	e, err := newEnvtest(cfg, subject, func() error { return nil })
	return e, attachment, err
}

// Warm reads the warm control plane's attachment at path and checks that it answers within
// warmAnswerWithin. The error wraps os.ErrNotExist when none was started.
func Warm(path string) (*rest.Config, []byte, error) {
	attachment, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := configOf(attachment)
	if err == nil {
		err = ready(cfg, warmAnswerWithin)
	}
	return cfg, attachment, err
}

// ready says whether the API server that cfg reaches answers /readyz within timeout.
func ready(cfg *rest.Config, timeout time.Duration) error {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return fmt.Errorf("no answer from %s: %w", cfg.Host, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: /readyz answered %s", cfg.Host, resp.Status)
	}
	return nil
}

// warmFileIn is WarmFile in the repository (or $ENVTEST_WARM), and the CRDs the scenarios need.
func warmFileIn() (file, crdDir string, err error) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return "", "", err
	}
	file = filepath.Join(root, WarmFile)
	if other := os.Getenv(WarmEnv); other != "" {
		file = other
	}
	return file, filepath.Join(root, "config", "crd", "bases"), nil
}
