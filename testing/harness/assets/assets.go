// Package assets finds the control plane's binaries where make and setup-envtest put them, for a
// run of the tests without make: `go test ./scenarios/...`, or an IDE's. make, and a kubebuilder
// project's Makefile, set $KUBEBUILDER_ASSETS, which is all package controlplane reads.
package assets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"example.com/operator-demo/testing/harness/controlplane"
)

// Env names the directory of the control plane's binaries, as envtest reads it.
const Env = "KUBEBUILDER_ASSETS"

// Export sets $KUBEBUILDER_ASSETS, when it is not set, to what Find finds: a provider calls it
// before it starts a control plane (warm.Start, localcluster.Start), so that `go test` (and an
// IDE) run a suite with what `make` installed, and a dry run of it needs nothing.
func Export() error {
	if os.Getenv(Env) != "" {
		return nil
	}
	dir, err := Find()
	if err != nil {
		return err
	}
	return os.Setenv(Env, dir)
}

// Find is the directory holding etcd, kube-apiserver and kubectl, found where make and
// setup-envtest look: $KUBEBUILDER_ASSETS when set; else the newest release of the Kubernetes
// minor the tests run on (KubernetesMinor) in the project's bin/k8s/, else in setup-envtest's
// user-level store.
func Find() (string, error) {
	if dir := os.Getenv(Env); dir != "" {
		return dir, nil
	}
	gomod, err := controlplane.Find("go.mod")
	if err != nil {
		return "", err
	}
	root := filepath.Dir(gomod)
	minor, err := KubernetesMinor(root)
	if err != nil {
		return "", err
	}
	places := []string{filepath.Join(root, "bin", "k8s")}
	if store, err := envtest.SetupEnvtestDefaultBinaryAssetsDirectory(); err == nil {
		places = append(places, store)
	}
	for _, place := range places {
		if dir := newest(place, minor); dir != "" {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no control-plane binaries for Kubernetes %s in %s: run `make setup-envtest`, or set KUBEBUILDER_ASSETS", minor, strings.Join(places, " or "))
}

// KubernetesMinor is the Kubernetes minor the tests run on: $ENVTEST_K8S_VERSION when set (as make
// sets it, e.g. 1.35), else go.mod's k8s.io/api minor (v0.37.2 -> 1.37).
func KubernetesMinor(root string) (string, error) {
	if v := os.Getenv("ENVTEST_K8S_VERSION"); v != "" {
		return v, nil
	}
	path := filepath.Join(root, "go.mod")
	content, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	gomod, err := modfile.ParseLax(path, content, nil)
	if err != nil {
		return "", err
	}
	for _, r := range gomod.Require {
		if r.Mod.Path == "k8s.io/api" && semver.Major(r.Mod.Version) == "v0" {
			return "1." + strings.Split(r.Mod.Version, ".")[1], nil
		}
	}
	return "", errors.New("go.mod does not require k8s.io/api v0.x.y")
}

// newest is the directory of the newest release of minor in place (named
// <version>-<os>-<arch>, as setup-envtest names them) that holds the three binaries, or "".
func newest(place, minor string) string {
	dirs, err := filepath.Glob(filepath.Join(place, fmt.Sprintf("%s.*-%s-%s", minor, runtime.GOOS, runtime.GOARCH)))
	if err != nil {
		return ""
	}
	dirs = slices.DeleteFunc(dirs, func(dir string) bool {
		for _, b := range []string{"etcd", "kube-apiserver", "kubectl"} {
			if info, err := os.Stat(filepath.Join(dir, b)); err != nil || info.IsDir() {
				return true
			}
		}
		return false
	})
	if len(dirs) == 0 {
		return ""
	}
	// Semantic versions, from <version>-<os>-<arch>: 1.37.9 before 1.37.10.
	version := func(dir string) string {
		v, _, _ := strings.Cut(filepath.Base(dir), "-")
		return "v" + v
	}
	slices.SortFunc(dirs, func(a, b string) int { return semver.Compare(version(a), version(b)) })
	return dirs[len(dirs)-1]
}
