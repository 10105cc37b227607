package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
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
		createdAtOnce(t, c)
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

	t.Run("waiting past the hold-back of CRDs established before returns at once", func(t *testing.T) {
		if took := waitPastCreateHoldBack(cp.Config, cp.CRDs...); took >= CreateHoldBack/2 {
			t.Errorf("WaitPastCreateHoldBack of CRDs established before the start returned took %s", took.Round(time.Millisecond))
		}
	})

	t.Run("a CRD the API server does not hold is waited for as if established now", func(t *testing.T) {
		missing := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "missing.example.org"}}
		if took := waitPastCreateHoldBack(cp.Config, missing); took < CreateHoldBack {
			t.Errorf("WaitPastCreateHoldBack of a CRD it cannot read took %s, want the whole hold-back, %s", took.Round(time.Millisecond), CreateHoldBack)
		}
	})
}

// waitPastCreateHoldBack is how long WaitPastCreateHoldBack took.
func waitPastCreateHoldBack(cfg *rest.Config, crds ...*apiextensionsv1.CustomResourceDefinition) time.Duration {
	start := time.Now()
	WaitPastCreateHoldBack(cfg, crds)
	return time.Since(start)
}

// TestStartSaysWhatIsMissing: without binaries, or with a CRD directory that is not there, Start
// fails at once, with an error that says what is missing.
func TestStartSaysWhatIsMissing(t *testing.T) {
	empty := t.TempDir()
	for name, tt := range map[string]struct {
		assets string
		crds   []string
		want   string
	}{
		"KUBEBUILDER_ASSETS unset":  {"", nil, "KUBEBUILDER_ASSETS is not set"},
		"a CRD directory missing":   {empty, []string{DefaultCRDs, "config/crd/missing"}, "no config/crd/missing in"},
		"no binaries in the assets": {empty, nil, "start envtest with binaries from " + empty},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("KUBEBUILDER_ASSETS", tt.assets)
			env, err := Start(tt.crds)
			if err == nil {
				t.Cleanup(func() { _ = env.Stop() })
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start = %v, want an error saying %q", err, tt.want)
			}
		})
	}
	noClient := &rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("not a certificate")}}
	if took := waitPastCreateHoldBack(noClient, &apiextensionsv1.CustomResourceDefinition{}); took < CreateHoldBack {
		t.Errorf("WaitPastCreateHoldBack with a configuration no client can be built from took %s, want the whole hold-back, %s", took.Round(time.Millisecond), CreateHoldBack)
	}
}

// TestAStartThatFailsStopsWhatItStarted: a CRD directory that is not there (here one a configure
// adds) fails the start once the control plane runs, naming it; the API server is stopped.
func TestAStartThatFailsStopsWhatItStarted(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "crds")
	var started *envtest.Environment
	env, err := Start(nil, func(env *envtest.Environment) {
		started = env
		env.CRDDirectoryPaths = append(env.CRDDirectoryPaths, missing)
	})
	if err == nil {
		t.Cleanup(func() { _ = env.Stop() })
		t.Fatalf("Start with the CRD directory %s missing: no error", missing)
	}
	for _, want := range []string{"start envtest with binaries from", missing} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start = %v, want an error saying %q", err, want)
		}
	}
	if _, err := discovery.NewDiscoveryClientForConfigOrDie(started.Config).ServerVersion(); err == nil {
		t.Error("the API server still answers once the start failed")
	}
}

// createdAtOnce checks that the first create of a Gadget (the third party's CRD) is not held back.
func createdAtOnce(t *testing.T, c client.Client) {
	t.Helper()
	gadget := &unstructured.Unstructured{}
	gadget.SetAPIVersion("example.org/v1")
	gadget.SetKind("Gadget")
	gadget.SetNamespace("default")
	gadget.SetName("first")
	started := time.Now()
	if err := c.Create(context.Background(), gadget); err != nil {
		t.Fatalf("create a Gadget: %v", err)
	}
	if took := time.Since(started); took > CreateHoldBack/2 {
		t.Errorf("the first create of a Gadget took %s: held back", took.Round(time.Millisecond))
	}
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
	if got, err := Find("config/crd/thirdparty"); err == nil || got != "" || !strings.Contains(err.Error(), "no config/crd/thirdparty in") {
		t.Errorf("Find of a missing directory = %q, %v; want an error naming it", got, err)
	}
	// An absolute path is taken as given: envtest says whether it is there (ErrorIfCRDPathMissing).
	if abs := filepath.Join(repo, "elsewhere"); !slices.Equal(findAll(t, []string{abs}), []string{abs}) {
		t.Errorf("FindAll(%s) is not the absolute path as given", abs)
	}
	if got := findAll(t, nil, "config/crd/bases"); !slices.Equal(got, []string{filepath.Join(repo, "config", "crd", "bases")}) {
		t.Errorf("FindAll of no paths = %q, want the unset one found", got)
	}
	if got := findAll(t, []string{"test"}, "config/crd/bases"); !slices.Equal(got, []string{filepath.Join(repo, "test")}) {
		t.Errorf("FindAll(test) = %q, want test's path alone", got)
	}
	if got, err := FindAll([]string{"test", "config/crd/thirdparty"}); err == nil || got != nil {
		t.Errorf("FindAll with a directory missing = %q, %v; want an error", got, err)
	}
}

// findAll is FindAll(paths, unset...), which must succeed.
func findAll(t *testing.T, paths []string, unset ...string) []string {
	t.Helper()
	found, err := FindAll(paths, unset...)
	if err != nil {
		t.Fatalf("FindAll(%q, %q): %v", paths, unset, err)
	}
	return found
}
