// Package controlplane starts envtest's control plane (etcd and kube-apiserver), from the
// binaries in $KUBEBUILDER_ASSETS, with the operator's CRDs installed. It runs no controllers: no
// garbage collector, no namespace controller. It knows nothing of the operator, so its own test,
// which proves the binaries, reruns only when they or the CRDs change.
package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// DefaultCRDs is where a kubebuilder project keeps its CRDs.
const DefaultCRDs = "config/crd/bases"

// Start starts etcd and kube-apiserver with the CRDs of the directories crds installed (DefaultCRDs
// when none; each found by Find), once each of configure has changed the environment (where its
// components log, say). It returns the environment, started, once the API server creates their
// custom resources without holding them back (WaitPastCreateHoldBack). Stop the managers using it
// before it: a watch still open makes the API server's shutdown wait for it.
func Start(crds []string, configure ...func(*envtest.Environment)) (*envtest.Environment, error) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		return nil, errors.New("KUBEBUILDER_ASSETS is not set: set it to the directory `setup-envtest use -p path` prints")
	}
	dirs, err := FindAll(crds, DefaultCRDs)
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     dirs,
		ErrorIfCRDPathMissing: true,
	}
	for _, c := range configure {
		c(env)
	}
	cfg, err := env.Start()
	if err != nil { // what did start is stopped
		return nil, errors.Join(fmt.Errorf("start envtest with binaries from %s: %w", assets, err), env.Stop())
	}
	WaitPastCreateHoldBack(cfg, env.CRDs)
	return env, nil
}

// CreateHoldBack is how long the API server holds back each create of a custom resource whose CRD
// became established less than CreateHoldBack ago (apiextensions-apiserver's
// customresource_handler.go). On a control plane just started, that is every process's first.
const CreateHoldBack = 2 * time.Second

// WaitPastCreateHoldBack returns once each of crds has been established for CreateHoldBack, as
// the API server that cfg reaches records it: once here costs what is left of the hold-back;
// each create inside it would pay all of it. A CRD it cannot read counts as established now.
func WaitPastCreateHoldBack(cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) {
	c, err := apiextensionsclient.NewForConfig(cfg)
	for _, crd := range crds {
		established := time.Now()
		if err == nil {
			// On an error, got is empty: no condition.
			got, _ := c.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), crd.Name, metav1.GetOptions{})
			if condition := apiextensionshelpers.FindCRDCondition(got, apiextensionsv1.Established); condition != nil {
				established = condition.LastTransitionTime.Time
			}
		}
		// The API server's clock is this machine's: nothing to poll. Waiting for each in turn
		// waits for the last.
		time.Sleep(time.Until(established.Add(CreateHoldBack)))
	}
}

// Find is the absolute path of path (relative to the repository, e.g. "config/crd/bases") in
// the working directory or the nearest directory above it that holds it: go test runs a package's
// tests in its directory, Ginkgo a precompiled suite in its binary's.
func Find(path string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	start, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := start; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, path)); err == nil {
			return filepath.Join(dir, path), nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no %s in %s or any directory above it", path, start)
		}
	}
}

// FindAll finds each of paths (Find), or unset when there are none.
func FindAll(paths []string, unset ...string) ([]string, error) {
	if len(paths) == 0 {
		paths = unset
	}
	found := make([]string, len(paths))
	for i, p := range paths {
		var err error
		if found[i], err = Find(p); err != nil {
			return nil, err
		}
	}
	return found, nil
}
