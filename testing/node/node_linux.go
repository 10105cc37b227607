package node

import (
	"context"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"example.com/operator-demo/testing/assets"
	"example.com/operator-demo/testing/localcluster"
	"example.com/operator-demo/testing/poll"
	"example.com/operator-demo/testing/process"
)

// Cluster is a LocalCluster with a node: containerd (runc, the CNI plugins ptp, host-local and
// loopback), a kubelet, kube-scheduler and kube-proxy (nftables mode), all processes of the
// test's, the node's state in stateDir and runDir, the components' logs in the cluster's
// directory. One node runs on a machine at a time; Stop puts the machine back as Start found it.
type Cluster struct {
	*localcluster.LocalCluster
	dir                                   string
	record                                *record
	lock                                  *os.File
	containerd, scheduler, kubelet, proxy *process.Process
}

// Start starts a local control plane (localcluster.Start) with a node, in dir. It needs root.
func Start(dir string, crds []string) (c *Cluster, err error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("the node runs containerd, a kubelet and kube-proxy, which need root: run the tier as root (sudo make test-e2e-local)")
	}
	c = &Cluster{dir: dir}
	if c.lock, err = lockMachine(); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Stop())
		}
	}()
	if c.record, err = recordMachine(); err != nil {
		return c, err
	}
	if c.record.Controllers, err = prepareHost(); err != nil {
		return c, err
	}
	if err := c.record.save(); err != nil {
		return c, err
	}
	ca, err := writePKI()
	if err != nil {
		return c, err
	}
	port, err := process.FreePortOn(nodeIP)
	if err != nil {
		return c, err
	}
	if c.LocalCluster, err = localcluster.Start(dir, crds, localcluster.Options{
		APIServer: func(api *envtest.APIServer) { configureAPIServer(api, ca, port) },
		// The Pods' kube-root-ca.crt (their token's volume), the Services' EndpointSlices, and the
		// node's not-ready taint, which the kubelet registers it with, lifted once it is Ready.
		Controllers:     []string{"root-ca-cert-publisher", "endpointslice", "nodelifecycle"},
		ControllerFlags: []string{"--root-ca-file=" + filepath.Join(pkiDir, "ca.crt")},
	}); err != nil {
		return c, err
	}
	if err := c.startContainerd(); err != nil {
		return c, err
	}
	return c, c.startNode()
}

// recordMachine records the machine as it is, once a node that did not stop (its test process
// killed) has been cleaned up after, from the record it left.
func recordMachine() (*record, error) {
	left, err := savedRecord()
	if err == nil && left != nil {
		err = left.restore()
	}
	if err != nil {
		return nil, fmt.Errorf("clean up after a node that did not stop: %w", err)
	}
	r, err := takeRecord()
	if err != nil {
		return nil, err
	}
	return r, r.save()
}

// The node's places and addresses.
const (
	// stateDir holds containerd's root, the kubelet's, the CNI's, the PKI; runDir containerd's
	// state and socket, runc's, and the record of the machine as the node found it.
	stateDir = "/var/lib/operator-demo-node"
	runDir   = "/run/operator-demo-node"
	lockFile = "/run/operator-demo-node.lock"
	// nodeName is the Node's; cgroupRoot the kubelet's, below which every Pod's cgroup lies.
	nodeName   = "operator-demo-node"
	cgroupRoot = "operator-demo-node"
	// nodeIP, on lo, is the node's one address: the API server's and the kubelet's, which Pods
	// reach through their gateway. No address of the machine's network is used.
	nodeIP      = "10.240.0.1"
	podCIDR     = "10.244.0.0/24"
	serviceCIDR = "10.96.0.0/16"
	// kubernetesIP is the kubernetes Service's: where Pods reach the API server.
	kubernetesIP = "10.96.0.1"
)

var (
	pkiDir           = filepath.Join(stateDir, "pki")
	containerdSocket = filepath.Join(runDir, "containerd.sock")
)

// Ctr is the command that runs ctr against the node's containerd, in the namespace of its
// Kubernetes images and containers.
func Ctr() []string {
	return []string{"ctr", "--address", containerdSocket, "--namespace", "k8s.io"}
}

// lockMachine takes the machine's node lock, waiting for another node to stop first.
func lockMachine() (*os.File, error) {
	f, err := os.OpenFile(lockFile, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		fmt.Fprintf(os.Stderr, "node: another node runs on this machine: waiting for it to stop (%s)\n", lockFile)
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("lock %s: %w", lockFile, err), f.Close())
	}
	return f, nil
}

// prepareHost gives lo the node's address, turns IP forwarding on for the Pods' gateway, makes
// the kubelet's cgroupRoot, and writes the CNI configuration. It returns the cgroup v2
// controllers it had to turn on for the root's children.
func prepareHost() ([]string, error) {
	for _, d := range []string{stateDir, runDir, filepath.Join(stateDir, "cni")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	if !addressed() {
		if err := run("ip", "addr", "add", nodeIP+"/32", "dev", "lo"); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1"), 0o644); err != nil {
		return nil, err
	}
	controllers, err := makeCgroupRoot()
	if err != nil {
		return controllers, err
	}
	conflist := fmt.Sprintf(`{"cniVersion": "1.0.0", "name": "operator-demo-node", "plugins": [
  {"type": "ptp", "ipMasq": false, "ipam": {"type": "host-local", "ranges": [[{"subnet": %q}]],
    "routes": [{"dst": "0.0.0.0/0"}], "dataDir": %q}},
  {"type": "loopback"}]}`, podCIDR, filepath.Join(stateDir, "cni", "ipam"))
	if err := os.MkdirAll(filepath.Join(stateDir, "cni", "net.d"), 0o700); err != nil {
		return controllers, err
	}
	return controllers, os.WriteFile(filepath.Join(stateDir, "cni", "net.d", "10-operator-demo-node.conflist"), []byte(conflist), 0o600)
}

// makeCgroupRoot makes the kubelet's cgroupRoot in every cgroup v1 hierarchy, or, on cgroup v2,
// in the root, with the controllers the kubelet needs turned on for the root's children.
func makeCgroupRoot() ([]string, error) {
	controllers, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers")
	if errors.Is(err, os.ErrNotExist) {
		hierarchies, _ := filepath.Glob("/sys/fs/cgroup/*/cgroup.procs")
		for _, h := range hierarchies {
			if filepath.Base(filepath.Dir(h)) == "unified" {
				continue
			}
			if err := os.MkdirAll(filepath.Join(filepath.Dir(h), cgroupRoot), 0o755); err != nil {
				return nil, err
			}
		}
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	enabled, err := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control")
	if err != nil {
		return nil, err
	}
	var turnedOn []string
	for _, want := range []string{"cpuset", "cpu", "io", "memory", "hugetlb", "pids"} {
		if strings.Contains(" "+string(controllers)+" ", " "+want+" ") && !strings.Contains(" "+strings.TrimSpace(string(enabled))+" ", " "+want+" ") {
			if err := os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+"+want), 0o644); err != nil {
				return turnedOn, fmt.Errorf("turn cgroup controller %s on: %w", want, err)
			}
			turnedOn = append(turnedOn, want)
		}
	}
	return turnedOn, os.MkdirAll(filepath.Join("/sys/fs/cgroup", cgroupRoot), 0o755)
}

// cniBinDir is where the CNI plugins are: Debian's and Ubuntu's package, or the upstream layout.
func cniBinDir() (string, error) {
	for _, d := range []string{"/usr/lib/cni", "/opt/cni/bin"} {
		if _, err := os.Stat(filepath.Join(d, "ptp")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no CNI plugins (ptp) in /usr/lib/cni or /opt/cni/bin: make test-e2e-local installs them (testing/k8sbin/install.sh node)")
}

// writePKI writes the node cluster's certificates into pkiDir: those envtest's API server reads
// from its certificate directory (its serving certificate, for the names Pods reach it by; the
// service-account signer), the CA, and the API server's client certificate to the kubelet.
func writePKI() (*authority, error) {
	ca, err := newAuthority()
	if err != nil {
		return nil, err
	}
	signer, err := newAuthority()
	if err != nil {
		return nil, err
	}
	signerKey, err := signer.keyPEM()
	if err != nil {
		return nil, err
	}
	serving, servingKey, err := ca.issue(pkix.Name{CommonName: "kube-apiserver"}, "localhost", "kubernetes", "kubernetes.default",
		"kubernetes.default.svc", "kubernetes.default.svc.cluster.local", nodeIP, kubernetesIP, "127.0.0.1")
	if err != nil {
		return nil, err
	}
	toKubelet, toKubeletKey, err := ca.issue(pkix.Name{CommonName: "kube-apiserver-kubelet-client", Organization: []string{"system:masters"}})
	if err != nil {
		return nil, err
	}
	kubelet, kubeletKey, err := ca.issue(pkix.Name{CommonName: nodeName}, nodeName, nodeIP)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(pkiDir, 0o700); err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{
		"ca.crt": ca.CertPEM, "apiserver.crt": serving, "apiserver.key": servingKey,
		"sa-signer.crt": signer.CertPEM, "sa-signer.key": signerKey,
		"kubelet-client.crt": toKubelet, "kubelet-client.key": toKubeletKey,
		"kubelet.crt": kubelet, "kubelet.key": kubeletKey,
	} {
		if err := os.WriteFile(filepath.Join(pkiDir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	return ca, nil
}

// configureAPIServer makes envtest's API server a node's: it serves on the node's address with
// the node's certificates, authorizes kubelets (Node, NodeRestriction), admits Pods with their
// ServiceAccount's token (envtest turns that admission plugin off), and reaches the kubelet.
func configureAPIServer(api *envtest.APIServer, ca *authority, port int) {
	api.CertDir = pkiDir
	api.SecureServing.CA = ca.CertPEM
	api.SecureServing.Authn = &authn{ca: ca, caFile: filepath.Join(pkiDir, "ca.crt")}
	api.SecureServing.ListenAddr = envtest.ListenAddr{Address: nodeIP, Port: strconv.Itoa(port)}
	api.Configure().
		Set("advertise-address", nodeIP).
		Set("service-cluster-ip-range", serviceCIDR).
		Set("authorization-mode", "Node,RBAC").
		Set("enable-admission-plugins", "NodeRestriction").
		Disable("disable-admission-plugins").
		Set("kubelet-client-certificate", filepath.Join(pkiDir, "kubelet-client.crt")).
		Set("kubelet-client-key", filepath.Join(pkiDir, "kubelet-client.key")).
		Set("kubelet-certificate-authority", filepath.Join(pkiDir, "ca.crt")).
		Set("kubelet-preferred-address-types", "InternalIP")
}

// startContainerd starts containerd on its own socket, state and root (another containerd on the
// machine, Docker's, is left alone), and imports the pause image its Pods' sandboxes run.
func (c *Cluster) startContainerd() error {
	pauseBinary := filepath.Join(os.Getenv(assets.Env), "pause")
	version, err := exec.Command(pauseBinary, "-v").Output()
	if err != nil {
		return fmt.Errorf("%s -v: %w (make test-e2e-local builds it: testing/k8sbin/install.sh node)", pauseBinary, err)
	}
	pause := "registry.k8s.io/pause:" + strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(string(version)), "pause.c "), "v")
	bin, err := cniBinDir()
	if err != nil {
		return err
	}
	config := filepath.Join(stateDir, "containerd.toml")
	if err := os.WriteFile(config, fmt.Appendf(nil, containerdConfig, stateDir, runDir, containerdSocket, pause, bin, stateDir, runDir), 0o600); err != nil {
		return err
	}
	if c.containerd, err = process.Start("containerd", filepath.Join(c.dir, "containerd.log"), 10*time.Second, "containerd", "--config", config); err != nil {
		return err
	}
	ctr := Ctr()
	if err := poll.Until(context.Background(), 100*time.Millisecond, 30*time.Second, func(context.Context) error {
		return run(ctr[0], append(ctr[1:], "version")...)
	}); err != nil {
		return fmt.Errorf("containerd is not answering, see %s: %w", c.containerd.Log, err)
	}
	archive := filepath.Join(stateDir, "pause.tar")
	const inImage = "/pause"
	image := Dockerfile{Base: scratch, Copies: []Copy{{From: inImage, To: inImage}},
		Config: Config{User: "65535:65535", Entrypoint: []string{inImage}}}
	if err := image.writeArchive(archive, pause, map[string]string{inImage: pauseBinary}); err != nil {
		return err
	}
	return c.Import(archive)
}

// containerdConfig is containerd's configuration (version 2, which containerd 1.6 to 2.x read):
// root, state, socket, sandbox image, CNI plugins and configuration, runc's root.
const containerdConfig = `version = 2
root = "%s/containerd"
state = "%s/containerd"
[grpc]
  address = %q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %q
  # Without CAP_SYS_RESOURCE (a VM's), runc cannot lower a container's oom_score_adj: clamp it.
  restrict_oom_score_adj = true
  # Pods' network namespaces under the state directory, not /var/run/netns.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %q
    conf_dir = "%s/cni/net.d"
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "%s/runc"
`

// Import imports a docker-archive into the node's containerd, for its kubelet to run.
func (c *Cluster) Import(archive string) error {
	ctr := Ctr()
	return run(ctr[0], append(ctr[1:], "images", "import", archive)...)
}

// startNode starts kube-scheduler, the kubelet and kube-proxy, and waits until the node is Ready.
func (c *Cluster) startNode() error {
	if err := c.writeConfigs(); err != nil {
		return err
	}
	assetsDir := os.Getenv(assets.Env)
	var err error
	if c.scheduler, err = process.Start("kube-scheduler", filepath.Join(c.dir, "kube-scheduler.log"), 10*time.Second,
		filepath.Join(assetsDir, "kube-scheduler"), "--kubeconfig="+filepath.Join(stateDir, "kube-scheduler.kubeconfig"),
		"--secure-port=0", "--leader-elect=false"); err != nil {
		return err
	}
	if c.kubelet, err = process.Start("kubelet", filepath.Join(c.dir, "kubelet.log"), 10*time.Second,
		filepath.Join(assetsDir, "kubelet"), "--config="+filepath.Join(stateDir, "kubelet.yaml"),
		"--kubeconfig="+filepath.Join(stateDir, "kubelet.kubeconfig"), "--root-dir="+filepath.Join(stateDir, "kubelet"),
		"--node-ip="+nodeIP, "--hostname-override="+nodeName, "--v=2"); err != nil {
		return err
	}
	if c.proxy, err = process.Start("kube-proxy", filepath.Join(c.dir, "kube-proxy.log"), 10*time.Second,
		filepath.Join(assetsDir, "kube-proxy"), "--config="+filepath.Join(stateDir, "kube-proxy.yaml")); err != nil {
		return err
	}
	return c.waitReady()
}

// waitReady waits until the node is Ready and kube-proxy has written its rules.
func (c *Cluster) waitReady() error {
	admin, err := client.New(c.Config, client.Options{})
	if err != nil {
		return err
	}
	if err := poll.Until(context.Background(), 200*time.Millisecond, time.Minute, func(ctx context.Context) error {
		node := &corev1.Node{}
		if err := admin.Get(ctx, client.ObjectKey{Name: nodeName}, node); err != nil {
			return err
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("node %s is not Ready", nodeName)
	}); err != nil {
		return fmt.Errorf("%w, see %s", err, c.kubelet.Log)
	}
	if err := poll.Until(context.Background(), 200*time.Millisecond, time.Minute, func(context.Context) error {
		return run("nft", "list", "table", "ip", "kube-proxy")
	}); err != nil {
		return fmt.Errorf("kube-proxy wrote no rules, see %s: %w", c.proxy.Log, err)
	}
	return nil
}

// writeConfigs writes kubeconfigs for kube-scheduler, the kubelet and kube-proxy, each with a
// client certificate of the user the bootstrap RBAC and the Node authorizer know it by, and the
// kubelet's and kube-proxy's configuration.
func (c *Cluster) writeConfigs() error {
	for name, user := range map[string]envtest.User{
		"kube-scheduler": {Name: "system:kube-scheduler"},
		"kubelet":        {Name: "system:node:" + nodeName, Groups: []string{"system:nodes"}},
		"kube-proxy":     {Name: "system:kube-proxy"},
	} {
		u, err := c.Env.AddUser(user, nil)
		if err != nil {
			return fmt.Errorf("add user %s: %w", user.Name, err)
		}
		kubeconfig, err := u.KubeConfig()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(stateDir, name+".kubeconfig"), kubeconfig, 0o600); err != nil {
			return err
		}
	}
	for name, data := range map[string]string{
		"kubelet.yaml":    fmt.Sprintf(kubeletConfig, cgroupRoot, containerdSocket, nodeIP, pkiDir, pkiDir, pkiDir, stateDir, stateDir),
		"kube-proxy.yaml": fmt.Sprintf(proxyConfig, stateDir, nodeName, podCIDR, nodeIP, nodeIP),
	} {
		if err := os.WriteFile(filepath.Join(stateDir, name), []byte(data), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// kubeletConfig is the kubelet's configuration for a node that is this machine.
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# Hosts on cgroup v1: the kubelet refuses them since 1.35 unless told otherwise (no effect on v2).
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /%s
failSwapOn: false
containerRuntimeEndpoint: unix://%s
address: %s
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %s/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: %s/kubelet.crt
tlsPrivateKeyFile: %s/kubelet.key
podLogsDir: %s/pod-logs
volumePluginDir: %s/kubelet-plugins
clusterDomain: cluster.local
# false: the kubelet sets kernel.panic, kernel.panic_on_oops and vm.overcommit_memory while it
# runs (true makes it refuse to start unless they are set already); Stop puts them back.
protectKernelDefaults: false
# A shared, busy disk must not evict the operator.
evictionHard: {memory.available: 100Mi, nodefs.available: 2%%, imagefs.available: 2%%, nodefs.inodesFree: 2%%}
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
# Without CAP_SYS_RESOURCE (a VM's) it cannot lower its own.
oomScoreAdj: 0
`

// proxyConfig is kube-proxy's: nftables mode, NodePorts on the node's address alone, and the
// host's conntrack sysctls left as they are.
const proxyConfig = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clientConnection: {kubeconfig: %s/kube-proxy.kubeconfig}
hostnameOverride: %s
clusterCIDR: %s
bindAddress: %s
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: [%s/32]
oomScoreAdj: 0
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
`

// Stop stops the node, then the control plane, then puts the machine back as Start found it
// (record.restore) and checks that nothing of the node is left. The Pods go with the node, before
// the API server: a client still watching it would make its shutdown wait.
func (c *Cluster) Stop() error {
	var errs []error
	for _, p := range []*process.Process{c.proxy, c.kubelet} {
		if p != nil {
			errs = append(errs, p.Stop())
		}
	}
	if c.scheduler != nil {
		// Without leader election, kube-scheduler exits 1 on SIGTERM ("finished without leader elect").
		if err := c.scheduler.Stop(); err != nil && !strings.Contains(err.Error(), "exit status 1") {
			errs = append(errs, err)
		}
	}
	if c.containerd != nil {
		errs = append(errs, c.containerd.Stop())
	}
	killLeftovers()
	if c.LocalCluster != nil {
		errs = append(errs, c.LocalCluster.Stop())
	}
	if c.record != nil {
		if err := c.record.restore(); err != nil {
			errs = append(errs, err)
		} else {
			errs = append(errs, c.record.clean())
		}
	}
	if c.lock != nil {
		errs = append(errs, c.lock.Close())
	}
	return errors.Join(errs...)
}

// Logs names the node's components' log files, and the control plane's.
func (c *Cluster) Logs() []string {
	logs := c.LocalCluster.Logs()
	for _, p := range []*process.Process{c.containerd, c.kubelet, c.scheduler, c.proxy} {
		logs = append(logs, p.Log)
	}
	return logs
}
