package controlplane

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
)

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

// BinaryAssets is the directory holding etcd, kube-apiserver and kubectl: $KUBEBUILDER_ASSETS
// when set (make sets it), else the newest bin/k8s/<version>-<os>-<arch> of the project, so that a
// test started from an IDE finds what `make setup-envtest` put there.
func BinaryAssets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	dirs, err := filepath.Glob(filepath.Join(root, "bin", "k8s", fmt.Sprintf("*-%s-%s", runtime.GOOS, runtime.GOARCH)))
	if err != nil || len(dirs) == 0 {
		return "", errors.New("no control-plane binaries: run `make setup-envtest`, or set KUBEBUILDER_ASSETS")
	}
	// Names are <version>-<os>-<arch>; the newest version sorts last when compared as versions.
	slices.SortFunc(dirs, func(a, b string) int { return compareVersions(filepath.Base(a), filepath.Base(b)) })
	return dirs[len(dirs)-1], nil
}

// compareVersions orders "1.9.0-linux-amd64" before "1.37.2-linux-amd64".
func compareVersions(a, b string) int {
	var am, an, ap, bm, bn, bp int
	_, _ = fmt.Sscanf(a, "%d.%d.%d", &am, &an, &ap)
	_, _ = fmt.Sscanf(b, "%d.%d.%d", &bm, &bn, &bp)
	return slices.Compare([]int{am, an, ap}, []int{bm, bn, bp})
}
