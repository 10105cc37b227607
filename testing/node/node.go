// Package node is the e2e tier on one Linux machine with a real node, as root: beside a local
// control plane (package localcluster: etcd, kube-apiserver, kube-controller-manager), containerd
// with runc and the CNI plugins, a kubelet, kube-scheduler and kube-proxy (Cluster); the operator's
// image built from its Dockerfile without Docker (ReadDockerfile) and imported into containerd;
// its manifests, rendered as `make deploy IMG=` renders them, deployed as the kind job deploys
// them (e2e.Deploy). What only a node proves is then proven here: the image runs as its
// Dockerfile says, under the Pod's securityContext and limits, Ready through its own probes, in
// its ServiceAccount's in-cluster configuration, its metrics Service reached through a real
// port-forward. E2E is the provider of the e2e tier's "local" cluster.
//
// The machine is put back as the node found it when it stops (sysctls, addresses, nftables,
// cgroups, mounts, files), and checked; one node runs on a machine at a time.
package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"example.com/operator-demo/testing/cluster"
	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/localcluster"
	"example.com/operator-demo/testing/operator"
)

// Deployment is the operator deployed as a Pod on a node Cluster.
type Deployment struct {
	*Cluster
	*e2e.Deployment
}

// E2E is the e2e tier on a node Cluster in reports/e2e, the operator deployed from
// $E2E_MANIFESTS: the provider `make test-e2e E2E_PROVIDER=local` runs the scenarios on. Given an
// operator binary instead ($E2E_OPERATOR_BINARY: make test-first builds one for each revision it
// tries), it hands over to localcluster.E2E, where that binary plays the Deployment.
func E2E(ctx context.Context, subject operator.Subject) (cluster.Cluster, []byte, error) {
	if os.Getenv(localcluster.OperatorBinaryEnv) != "" {
		return localcluster.E2E(ctx, subject)
	}
	root, err := localcluster.Root()
	if err != nil {
		return nil, nil, err
	}
	d, err := StartDeployment(ctx, filepath.Join(root, "reports", "e2e"), subject)
	if err != nil {
		return nil, nil, err
	}
	return e2e.New(d.Config, d.Client, d.Operator, d.Stop), nil, nil
}

// StartDeployment builds the operator's image from the repository's Dockerfile, under the name
// the manifests in $E2E_MANIFESTS give it, starts a node Cluster in dir, imports the image into
// it and deploys the manifests (e2e.Deploy).
func StartDeployment(ctx context.Context, dir string, subject operator.Subject) (*Deployment, error) {
	path := os.Getenv(e2e.ManifestsEnv)
	if path == "" {
		return nil, fmt.Errorf("%s is not set: `make test-e2e-local` renders config/default with the image IMG and sets it", e2e.ManifestsEnv)
	}
	rendered, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := e2e.ReadManifests(rendered)
	if err != nil {
		return nil, err
	}
	containers, _, _ := unstructured.NestedSlice(m.Deployment.Object, "spec", "template", "spec", "containers")
	first, _ := containers[0].(map[string]any)
	image, _ := first["image"].(string)
	root, err := localcluster.Root()
	if err != nil {
		return nil, err
	}
	dockerfile, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		return nil, err
	}
	archive, err := BuildImage(ctx, dockerfile, image)
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(filepath.Dir(archive)) }()
	c, err := Start(dir, subject.CRDs)
	if err != nil {
		return nil, err
	}
	d := &Deployment{Cluster: c}
	if err := c.Import(archive); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	if d.Deployment, err = e2e.Deploy(ctx, c.Config, subject, rendered, e2e.Options{
		AuditLog: c.AuditLog, Kill: e2e.CtrKill(Ctr()), LogDir: filepath.Join(dir, "pods"), ClusterLogs: c.Logs(),
	}); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	return d, nil
}

// Stop stops forwarding the operator's metrics, then the Cluster.
func (d *Deployment) Stop() error { return errors.Join(d.Deployment.Stop(), d.Cluster.Stop()) }

// ImportImage builds the image a Dockerfile (the repository's, or a variant of it) describes,
// named name, and imports it into the node.
func (d *Deployment) ImportImage(ctx context.Context, dockerfile []byte, name string) error {
	archive, err := BuildImage(ctx, dockerfile, name)
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(filepath.Dir(archive)) }()
	return d.Import(archive)
}

// BuildImage builds the image dockerfile describes, with the repository as its build context,
// into a docker-archive named name, in a directory of its own that the caller removes.
func BuildImage(ctx context.Context, dockerfile []byte, name string) (string, error) {
	df, err := ReadDockerfile(dockerfile)
	if err != nil {
		return "", err
	}
	root, err := localcluster.Root()
	if err != nil {
		return "", err
	}
	work, err := os.MkdirTemp("", "operator-demo-image-")
	if err != nil {
		return "", err
	}
	archive := filepath.Join(work, "image.tar")
	if err := df.Build(ctx, root, filepath.Join(work, "builder"), archive, Reference(name)); err != nil {
		return "", errors.Join(fmt.Errorf("build the image %s from the Dockerfile: %w", name, err), os.RemoveAll(work))
	}
	return archive, nil
}

// Reference is the name containerd knows image by, as Docker normalizes it: the kubelet asks for
// a Pod's image by it (operator-demo:dev is docker.io/library/operator-demo:dev).
func Reference(image string) string {
	name := image
	switch first, _, path := strings.Cut(image, "/"); {
	case !path:
		name = "docker.io/library/" + image
	case !strings.ContainsAny(first, ".:") && first != "localhost":
		name = "docker.io/" + image
	}
	if last := name[strings.LastIndex(name, "/")+1:]; !strings.ContainsAny(last, ":@") {
		name += ":latest"
	}
	return name
}
