package assets

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"example.com/operator-demo/testing/harness/controlplane"
)

// TestFindLooksWhereMakeAndSetupEnvtestPutThem: without KUBEBUILDER_ASSETS, the binaries
// of the minor the tests run on are found in the project's bin/k8s/, else in setup-envtest's
// user-level store, as on a fresh clone of a machine where make setup-envtest once ran.
func TestFindLooksWhereMakeAndSetupEnvtestPutThem(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n\nrequire (\n\tk8s.io/api v0.37.2\n)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	t.Setenv("KUBEBUILDER_ASSETS", "")
	t.Setenv("ENVTEST_K8S_VERSION", "")
	t.Setenv("XDG_DATA_HOME", data)
	if runtime.GOOS == "darwin" {
		t.Setenv("HOME", data)
	}
	store, err := envtest.SetupEnvtestDefaultBinaryAssetsDirectory()
	if err != nil {
		t.Fatal(err)
	}
	// binaries puts fake binaries into <release>-<os>-<arch>, as setup-envtest names its directories.
	binaries := func(release string) string {
		t.Helper()
		dir := fmt.Sprintf("%s-%s-%s", release, runtime.GOOS, runtime.GOARCH)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, b := range []string{"etcd", "kube-apiserver", "kubectl"} {
			if err := os.WriteFile(filepath.Join(dir, b), nil, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	find := func() string {
		t.Helper()
		dir, err := Find()
		if err != nil {
			return "error: " + err.Error()
		}
		return dir
	}

	if got := find(); !strings.Contains(got, "no control-plane binaries for Kubernetes 1.37") || !strings.Contains(got, store) {
		t.Errorf("with none installed: %q, want an error naming the minor and the places looked in", got)
	}
	inStore := binaries(filepath.Join(store, "1.37.10"))
	binaries(filepath.Join(store, "1.37.9"))
	binaries(filepath.Join(store, "1.36.3"))
	if got := find(); got != inStore {
		t.Errorf("with 1.37.9 and 1.37.10 in setup-envtest's store only: %q, want the newest, %q", got, inStore)
	}
	inProject := binaries(filepath.Join(root, "bin", "k8s", "1.37.1"))
	if got := find(); got != inProject {
		t.Errorf("with 1.37 in bin/k8s too: %q, want the project's %q", got, inProject)
	}
	t.Setenv("ENVTEST_K8S_VERSION", "1.36")
	if got := find(); got != filepath.Join(store, "1.36.3-"+runtime.GOOS+"-"+runtime.GOARCH) {
		t.Errorf("with ENVTEST_K8S_VERSION=1.36: %q, want the store's 1.36.3", got)
	}
	t.Setenv("KUBEBUILDER_ASSETS", "/somewhere")
	if got := find(); got != "/somewhere" {
		t.Errorf("with KUBEBUILDER_ASSETS set: %q, want it as it is", got)
	}
}

// TestTheVersionsFileStartsWithGoModsKubernetes: the supported versions, one place for the Makefile
// and the workflow, begin with the default, go.mod's, and pin every kind node image by digest. The
// file and that go.mod are the operator's, the repository's root, above the harness's module.
func TestTheVersionsFileStartsWithGoModsKubernetes(t *testing.T) {
	versionsPath, err := controlplane.Find(filepath.Join("hack", "k8sbin", "kubernetes-versions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(versionsPath)))
	gomodPath := filepath.Join(root, "go.mod")
	t.Setenv("ENVTEST_K8S_VERSION", "")
	minor, err := KubernetesMinor(root)
	if err != nil {
		t.Fatal(err)
	}
	api := requiredAPI(t, gomodPath)
	content, err := os.ReadFile(versionsPath)
	if err != nil {
		t.Fatal(err)
	}
	var minors []string
	for line := range strings.SplitSeq(string(content), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 3 || !strings.HasPrefix(fields[1], fields[0]+".") || !regexp.MustCompile(`^kindest/node:v`+regexp.QuoteMeta(fields[0])+`\.\d+@sha256:[0-9a-f]{64}$`).MatchString(fields[2]) {
			t.Errorf("line %q: want <minor> <release of it> kindest/node:v<release of it>@sha256:<digest>", line)
		}
		minors = append(minors, fields[0])
	}
	if len(minors) == 0 || minors[0] != minor {
		t.Fatalf("the first minor is %v, want go.mod's %s", minors, minor)
	}
	if first := strings.Fields(strings.Split(strings.SplitN(string(content), "\n"+minor+" ", 2)[1], "\n")[0])[0]; "1."+api != first {
		t.Errorf("the default minor builds %s from source; go.mod's k8s.io/api wants 1.%s", first, api)
	}
	sorted := slices.Clone(minors)
	slices.SortFunc(sorted, func(a, b string) int { return semver.Compare("v"+b, "v"+a) })
	if !slices.Equal(minors, slices.Compact(sorted)) {
		t.Errorf("minors %v: want each once, newest first", minors)
	}
}

// requiredAPI is the version of k8s.io/api that the go.mod at path requires, without "v0.": 37.2.
func requiredAPI(t *testing.T, path string) string {
	t.Helper()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := modfile.ParseLax(path, content, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range gomod.Require {
		if r.Mod.Path == "k8s.io/api" {
			return strings.TrimPrefix(r.Mod.Version, "v0.")
		}
	}
	t.Fatalf("%s requires no k8s.io/api", path)
	return ""
}
