package harness

import (
	"fmt"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ControlPlane is a kube-apiserver and etcd started by envtest for this test process, with the
// project's CRDs (config/crd/bases) installed. envtest runs no controllers: no garbage collector,
// no namespace controller.
type ControlPlane struct {
	env *envtest.Environment
	// Config reaches the API server as an administrator.
	Config *rest.Config
}

// StartControlPlane starts etcd and kube-apiserver and installs the CRDs.
func StartControlPlane() (*ControlPlane, error) {
	assets, err := BinaryAssets()
	if err != nil {
		return nil, err
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
	cfg, err := env.Start()
	if err != nil {
		// A failed start can leave etcd or kube-apiserver running: stop whatever did start.
		_ = env.Stop()
		return nil, fmt.Errorf("start envtest with binaries from %s: %w", assets, err)
	}
	return &ControlPlane{env: env, Config: cfg}, nil
}

// Stop stops kube-apiserver and etcd. Stop every manager using them first: a manager still
// watching makes the API server's shutdown wait for its watches.
func (cp *ControlPlane) Stop() error {
	return cp.env.Stop()
}
