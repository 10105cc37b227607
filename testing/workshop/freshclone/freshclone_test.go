// Package freshclone runs the README's command for one scenario as a newcomer would: in a fresh
// clone of the repository, on a machine where `make setup-envtest` once put the control plane in
// setup-envtest's user-level store, and nothing else: no KUBEBUILDER_ASSETS, no bin/, no make, no
// downloads. `make test-fresh-clone` runs it (with the store's binaries in KUBEBUILDER_ASSETS,
// which it hands to the clone only through a store of its own).
package freshclone

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"example.com/operator-demo/testing/workshop/repo"
)

func TestTheREADMEsSingleScenarioCommandWorksOnAFreshClone(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`(go test (?:-[a-z]+ )*./scenarios/ -ginkgo.label-filter=)([a-z-]+)`").FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README gives no `go test [flags] ./scenarios/ -ginkgo.label-filter=<label>` command")
	}
	command := strings.Fields(string(m[1]) + "create")

	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: `make test-fresh-clone` sets it to the control plane to put in the store")
	}
	clone := filepath.Join(t.TempDir(), "operator-demo")
	run(t, "", nil, "git", "clone", "--quiet", root, clone)

	// setup-envtest's user-level store, as `make setup-envtest` leaves it: the binaries only.
	data := t.TempDir()
	store := filepath.Join(data, "kubebuilder-envtest", "k8s")
	if runtime.GOOS == "darwin" {
		store = filepath.Join(data, "Library", "Application Support", "io.kubebuilder.envtest", "k8s")
	}
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(assets, filepath.Join(store, filepath.Base(assets))); err != nil {
		t.Fatal(err)
	}

	env := []string{"XDG_DATA_HOME=" + data, "GOPROXY=off"}
	if runtime.GOOS == "darwin" {
		env = append(env, "HOME="+data)
	}
	out := run(t, filepath.Join(clone), env, command[0], command[1:]...)
	if !strings.Contains(out, "ok") {
		t.Errorf("`%s` in a fresh clone printed no ok:\n%s", strings.Join(command, " "), out)
	}
}

// run runs name in dir with the test's environment, less the variables that would tell it where
// the binaries are, plus env, and fails the test with the output unless it succeeds.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "KUBEBUILDER_ASSETS" && k != "ENVTEST_K8S_VERSION" && k != "XDG_DATA_HOME" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}
