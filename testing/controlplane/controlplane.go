// Package controlplane starts the envtest control plane (etcd and kube-apiserver) that every
// test tier above the unit tests stands on, with the project's CRDs installed, from the binaries
// in $KUBEBUILDER_ASSETS (`make setup-envtest` provides them; package assets finds them for a run
// without make). It knows nothing of the operator, so its own test, which proves the binaries,
// reruns only when they, the API or go.mod change.
package controlplane

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ControlPlane is a kube-apiserver and etcd started by envtest for this test process, with the
// project's CRDs (config/crd/bases) installed. envtest runs no controllers: no garbage collector,
// no namespace controller.
type ControlPlane struct {
	// Env is envtest's environment, started: its binaries, its API server, its users.
	Env *envtest.Environment
	// Config reaches the API server as an administrator.
	Config *rest.Config
}

// Start starts etcd and kube-apiserver, from the binaries in $KUBEBUILDER_ASSETS, and installs the
// CRDs. Each of configure changes the environment first (where its components log, say).
func Start(configure ...func(*envtest.Environment)) (*ControlPlane, error) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		return nil, errors.New("KUBEBUILDER_ASSETS is not set: run the tests through make (make test), or set it to the directory `setup-envtest use -p path` prints")
	}
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	for _, c := range configure {
		c(env)
	}
	cfg, err := env.Start()
	if err != nil {
		// A failed start can leave etcd or kube-apiserver running: stop whatever did start.
		return nil, errors.Join(fmt.Errorf("start envtest with binaries from %s: %w", assets, err), env.Stop())
	}
	return &ControlPlane{Env: env, Config: cfg}, nil
}

// Stop stops kube-apiserver and etcd. Stop every manager using them first: a manager still
// watching makes the API server's shutdown wait for its watches.
func (cp *ControlPlane) Stop() error { return cp.Env.Stop() }

// RepoRoot is the directory holding the project's go.mod, found upwards from the working
// directory: go test runs a package's tests in the package's directory, and Ginkgo runs a
// precompiled suite in its binary's directory (bin/).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
