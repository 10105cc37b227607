// Package controlplane starts the envtest control plane (etcd and kube-apiserver) that every
// test tier above the unit tests stands on, with the project's CRDs installed, from the binaries
// `make setup-envtest` provides. It knows nothing of the operator, so its own test, which proves
// the binaries, reruns only when they, the API or go.mod change.
package controlplane

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ControlPlane is a kube-apiserver and etcd started by envtest for this test process, with the
// project's CRDs (config/crd/bases) installed. envtest runs no controllers: no garbage collector,
// no namespace controller.
type ControlPlane struct {
	env  *envtest.Environment
	logs []*os.File
	// Config reaches the API server as an administrator.
	Config *rest.Config
}

// Start starts etcd and kube-apiserver and installs the CRDs. With a logDir, their
// output goes to etcd.log and kube-apiserver.log there; without, it is discarded.
func Start(logDir string) (*ControlPlane, error) {
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
	var logs []*os.File
	if logDir != "" {
		env.ControlPlane.Etcd = &envtest.Etcd{}
		// A certificate directory of its own, kept across a restart: the API server then comes
		// back with the same serving certificate and service-account keys, and every client and
		// token keeps working (cluster.LocalCluster.RestartAPIServer).
		pki := filepath.Join(logDir, "pki")
		if err := os.MkdirAll(pki, 0o700); err != nil {
			return nil, err
		}
		env.ControlPlane.APIServer = &envtest.APIServer{CertDir: pki}
		for name, out := range map[string]*io.Writer{"etcd": &env.ControlPlane.Etcd.Out, "kube-apiserver": &env.ControlPlane.APIServer.Out} {
			f, err := os.Create(filepath.Join(logDir, name+".log"))
			if err != nil {
				return nil, err
			}
			logs = append(logs, f)
			*out = f
		}
		env.ControlPlane.Etcd.Err, env.ControlPlane.APIServer.Err = env.ControlPlane.Etcd.Out, env.ControlPlane.APIServer.Out
	}
	cfg, err := env.Start()
	if err != nil {
		// A failed start can leave etcd or kube-apiserver running: stop whatever did start.
		_ = env.Stop()
		closeAll(logs)
		return nil, fmt.Errorf("start envtest with binaries from %s: %w", assets, err)
	}
	return &ControlPlane{env: env, logs: logs, Config: cfg}, nil
}

// AddAdmin adds a user in the group system:masters, for a kubeconfig or kubectl.
func (cp *ControlPlane) AddAdmin(name string) (*envtest.AuthenticatedUser, error) {
	user, err := cp.env.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("add user %s: %w", name, err)
	}
	return user, nil
}

// BinaryDir is the directory the control plane's binaries came from; kubectl is there too.
func (cp *ControlPlane) BinaryDir() string { return cp.env.BinaryAssetsDirectory }

// APIServer is the running kube-apiserver, for tests that stop and start it.
func (cp *ControlPlane) APIServer() *envtest.APIServer { return cp.env.ControlPlane.GetAPIServer() }

// Stop stops kube-apiserver and etcd. Stop every manager using them first: a manager still
// watching makes the API server's shutdown wait for its watches.
func (cp *ControlPlane) Stop() error {
	defer closeAll(cp.logs)
	return cp.env.Stop()
}

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
