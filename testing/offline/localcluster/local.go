// Package localcluster is a real control plane where Docker is absent: envtest's etcd and
// kube-apiserver plus kube-controller-manager (its garbage collector among its controllers), with
// config/default deployed and the operator binary playing its Deployment: the demo's cluster, and
// the e2e tier where Docker is absent (E2E: make test-e2e-local's, make test-first's), which needs
// no root. Leave it out of your suite if kind runs your e2e tier.
package localcluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/harness/assets"
	"example.com/operator-demo/testing/harness/controlplane"
)

// How long leader election takes to move, with controller-runtime's defaults (LeaseDuration
// 15 s, RetryPeriod 2 s), which the operator's manager keeps.
const (
	// Failover bounds how long a new operator may take to become leader after the old one was
	// killed: the old one's lease must expire first.
	Failover = 30 * time.Second
	// Standby is how long a test watches a standby replica not take the lease: two retry periods
	// and a margin, so that it sees the standby try at least once.
	Standby = 5 * time.Second
)

// LocalCluster is a control plane on loopback that does what a real cluster does for this
// operator: envtest's etcd and kube-apiserver (RBAC on), plus kube-controller-manager running the
// garbage collector, the namespace, service-account, deployment and replicaset controllers, and
// the storage version migrator (on by default since Kubernetes 1.37; an older minor's leaves
// itself off). It is the e2e tier where Docker is absent.
type LocalCluster struct {
	*envtest.Environment
	// Dir holds the kubeconfigs and every component's log.
	Dir string
	// AdminKubeconfig is a kubeconfig file for a cluster administrator (group system:masters).
	AdminKubeconfig string
	// AuditLog is the API server's audit log (e2e.AuditPolicy): every write request, one a line.
	AuditLog string
	kcm      *process
	logs     []*os.File
}

// Start starts the control plane in dir: etcd and kube-apiserver, logging there, with a
// certificate directory of their own there and an audit log of every write (AuditLog), the CRDs of
// the directories crds installed (as controlplane.Start does); then kube-controller-manager, as a
// cluster administrator: its garbage collector learns the CRDs at start (a type installed later
// waits for its periodic discovery resync, about 30 s). What of it started is stopped on failure.
func Start(dir string, crds []string) (_ *LocalCluster, err error) {
	if err := assets.Export(); err != nil {
		return nil, err
	}
	kcmBinary := filepath.Join(os.Getenv(assets.Env), "kube-controller-manager")
	if _, err := os.Stat(kcmBinary); err != nil {
		return nil, fmt.Errorf("no kube-controller-manager in %s: run `make setup-controlplane`", os.Getenv(assets.Env))
	}
	// The directory is this cluster's alone: logs of an earlier run would only mislead.
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "pki"), 0o700); err != nil {
		return nil, err
	}
	lc := &LocalCluster{Dir: dir, AdminKubeconfig: filepath.Join(dir, "admin.kubeconfig"), AuditLog: filepath.Join(dir, "audit.log")}
	defer func() {
		if err != nil {
			err = errors.Join(err, lc.Stop())
		}
	}()
	policy := filepath.Join(lc.Dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, e2e.AuditPolicy, 0o600); err != nil {
		return nil, err
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		f, err := os.Create(filepath.Join(lc.Dir, name+".log"))
		if err != nil {
			return nil, err
		}
		lc.logs = append(lc.logs, f)
	}
	lc.Environment, err = controlplane.Start(crds, func(env *envtest.Environment) {
		env.ControlPlane.Etcd = &envtest.Etcd{Out: lc.logs[0], Err: lc.logs[0]}
		env.ControlPlane.APIServer = &envtest.APIServer{CertDir: filepath.Join(lc.Dir, "pki"), Out: lc.logs[1], Err: lc.logs[1]}
		env.ControlPlane.APIServer.Configure().
			Set("audit-policy-file", policy).
			Set("audit-log-path", lc.AuditLog)
	})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(lc.AdminKubeconfig, lc.KubeConfig, 0o600); err != nil {
		return nil, err
	}
	if lc.kcm, err = startProcess("kube-controller-manager", filepath.Join(lc.Dir, "kube-controller-manager.log"), 10*time.Second, kcmBinary,
		"--kubeconfig="+lc.AdminKubeconfig,
		"--controllers=garbagecollector,namespace,serviceaccount,deployment,replicaset,storage-version-migrator-controller",
		"--leader-elect=false",
		"--use-service-account-credentials=false",
		"--secure-port=0",
	); err != nil {
		return nil, err
	}
	return lc, nil
}

// Stop stops kube-controller-manager, then the control plane, and closes their logs: what of them
// started.
func (lc *LocalCluster) Stop() error {
	var errs []error
	if lc.kcm != nil {
		errs = append(errs, lc.kcm.Stop())
	}
	if lc.Environment != nil {
		errs = append(errs, lc.Environment.Stop())
	}
	for _, f := range lc.logs {
		_ = f.Close()
	}
	return errors.Join(errs...)
}

// lastLines is the last n lines of the API server's log, kube-controller-manager's and each of
// more, for a failed spec: each after its name, as tail prints them.
func (lc *LocalCluster) lastLines(n int, more ...string) string {
	files := append([]string{filepath.Join(lc.Dir, "kube-apiserver.log"), lc.kcm.log}, more...)
	out, _ := exec.Command("tail", append([]string{"-n", strconv.Itoa(n)}, files...)...).CombinedOutput()
	return "\n" + string(out)
}

// Root is the repository the local cluster deploys from: the directory that holds config/default.
func Root() (string, error) {
	dir, err := controlplane.Find(filepath.Join("config", "default"))
	return filepath.Dir(filepath.Dir(dir)), err
}
