package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// thirdParty holds a CRD of someone else's, to install beside the operator's.
const thirdParty = "testing/harness/controlplane/testdata/thirdparty"

// TestControlPlane starts envtest with the binaries that `make setup-envtest` provides and proves
// they make a working control plane of the release their directory names: the API server reports
// it, kubectl parses it, a ConfigMap round-trips through the API server, and the project's CRDs,
// and a third party's from a directory of its own, are installed and served.
func TestControlPlane(t *testing.T) {
	cp, err := Start([]string{DefaultCRDs, thirdParty})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("stop control plane: %v", err)
		}
	})
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	// First: the others take long enough for the hold-back to pass without Start's wait.
	t.Run("a custom resource is created at once: every CRD is past the API server's create hold-back", func(t *testing.T) {
		for _, crd := range listCRDs(t, c) {
			at, ok := established(crd)
			if !ok {
				t.Errorf("CRD %s is not established", crd.GetName())
			} else if since := time.Since(at); since < CreateHoldBack {
				t.Errorf("CRD %s was established %s ago: a create now is held back %s", crd.GetName(), since.Round(time.Millisecond), CreateHoldBack)
			}
		}
	})

	t.Run("the API server and kubectl report the release their directory names", func(t *testing.T) {
		version, err := discovery.NewDiscoveryClientForConfigOrDie(cp.Config).ServerVersion()
		if err != nil {
			t.Fatalf("server version: %v", err)
		}
		// setup-envtest names a release's directory <release>-<os>-<arch>, as bin/k8s does.
		release, _, _ := strings.Cut(filepath.Base(cp.BinaryAssetsDirectory), "-")
		if version.GitVersion != "v"+release {
			t.Errorf("kube-apiserver reports %s; its directory %s names %s", version.GitVersion, cp.BinaryAssetsDirectory, release)
		}
		if got := kubectlServerVersion(t, cp); got != version.GitVersion {
			t.Errorf("kubectl sees server %q, discovery sees %q", got, version.GitVersion)
		}
	})

	t.Run("a ConfigMap round-trips", func(t *testing.T) {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "round-trip", Namespace: "default"},
			Data:       map[string]string{"k": "v"},
		}
		got := &corev1.ConfigMap{}
		roundTrip(t, c, cm, got)
		if got.Data["k"] != "v" || got.UID == "" {
			t.Errorf("ConfigMap came back as %+v", got)
		}
	})

	t.Run("every CRD of config/crd/bases and of the third party's directory is installed and established", func(t *testing.T) {
		crdsEstablished(t, c, DefaultCRDs, thirdParty)
	})
}

// crdsEstablished checks that the API server holds as many CRDs as dirs have files, each of them
// established.
func crdsEstablished(t *testing.T, c client.Client, dirs ...string) {
	t.Helper()
	var files []string
	for _, d := range dirs {
		dir, err := Find(d)
		if err != nil {
			t.Fatal(err)
		}
		in, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil || len(in) == 0 {
			t.Fatalf("no CRD files in %s: %v", d, err)
		}
		files = append(files, in...)
	}
	crds := listCRDs(t, c)
	if len(crds) != len(files) {
		t.Errorf("%d CRDs installed, %v hold %d", len(crds), dirs, len(files))
	}
	for _, crd := range crds {
		if _, ok := established(crd); !ok {
			t.Errorf("CRD %s is not established", crd.GetName())
		}
	}
}

// listCRDs is every CRD the API server holds.
func listCRDs(t *testing.T, c client.Client) []unstructured.Unstructured {
	t.Helper()
	crds := &unstructured.UnstructuredList{}
	crds.SetAPIVersion("apiextensions.k8s.io/v1")
	crds.SetKind("CustomResourceDefinitionList")
	if err := c.List(context.Background(), crds); err != nil {
		t.Fatal(err)
	}
	return crds.Items
}

// established is when crd's Established condition last turned True, as the API server holds it;
// false when it is not True.
func established(crd unstructured.Unstructured) (time.Time, bool) {
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
			at, err := time.Parse(time.RFC3339, fmt.Sprint(m["lastTransitionTime"]))
			return at, err == nil
		}
	}
	return time.Time{}, false
}

// roundTrip creates obj and reads it back into got.
func roundTrip(t *testing.T, c client.Client, obj, got client.Object) {
	t.Helper()
	ctx := context.Background()
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
		t.Fatalf("get: %v", err)
	}
}

// kubectlServerVersion is the server's gitVersion as `kubectl version` parses it.
func kubectlServerVersion(t *testing.T, cp *envtest.Environment) string {
	t.Helper()
	user, err := cp.AddUser(envtest.User{Name: "kubectl", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubectl, err := user.Kubectl()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := kubectl.Run("version", "-o", "json")
	if err != nil {
		msg, _ := io.ReadAll(stderr)
		t.Fatalf("kubectl version: %v: %s", err, msg)
	}
	var kv struct {
		ServerVersion struct{ GitVersion string } `json:"serverVersion"`
	}
	if err := json.NewDecoder(stdout).Decode(&kv); err != nil {
		t.Fatalf("kubectl version -o json: %v", err)
	}
	return kv.ServerVersion.GitVersion
}

// TestFindLooksUpwardsFromTheWorkingDirectory: a suite in a nested module (scenarios/go.mod, say)
// finds the CRDs of the repository around it, and a missing directory is an error that names it.
func TestFindLooksUpwardsFromTheWorkingDirectory(t *testing.T) {
	repo := t.TempDir()
	for _, dir := range []string{"config/crd/bases", "test/e2e/suite"} {
		if err := os.MkdirAll(filepath.Join(repo, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "test", "go.mod"), []byte("module example.org/tests\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(repo, "test", "e2e", "suite"))
	if got, err := Find("config/crd/bases"); err != nil || got != filepath.Join(repo, "config", "crd", "bases") {
		t.Errorf("Find = %q, %v; want the repository's config/crd/bases", got, err)
	}
	if _, err := Find("config/crd/thirdparty"); err == nil || !strings.Contains(err.Error(), "no config/crd/thirdparty in") {
		t.Errorf("Find of a missing directory = %v, want an error naming it", err)
	}
}
