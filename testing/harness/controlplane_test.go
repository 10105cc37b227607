package harness

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	"example.com/operator-demo/controllers"
)

// TestControlPlane starts envtest with the binaries that `make setup-envtest` provides and proves
// they make a working control plane of the version go.mod asks for: the API server reports it,
// kubectl parses it, and objects (built-in and Sample) round-trip through the API server.
func TestControlPlane(t *testing.T) {
	cp, err := StartControlPlane()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("stop control plane: %v", err)
		}
	})
	ctx := context.Background()

	wantMinor := apiMinorFromGoMod(t)
	version, err := discovery.NewDiscoveryClientForConfigOrDie(cp.Config).ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	if version.Major != "1" || version.Minor != wantMinor {
		t.Errorf("kube-apiserver reports %s (major %q, minor %q); go.mod's k8s.io/api wants 1.%s", version.GitVersion, version.Major, version.Minor, wantMinor)
	}

	stdout, stderr, err := cp.env.ControlPlane.KubeCtl().Run("version", "-o", "json")
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
	if kv.ServerVersion.GitVersion != version.GitVersion {
		t.Errorf("kubectl sees server %q, discovery sees %q", kv.ServerVersion.GitVersion, version.GitVersion)
	}

	c, err := client.New(cp.Config, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "round-trip", Namespace: "default"},
		Data:       map[string]string{"k": "v"},
	}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatalf("create ConfigMap: %v", err)
	}
	got := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
		t.Fatalf("get ConfigMap: %v", err)
	}
	if got.Data["k"] != "v" || got.UID == "" {
		t.Errorf("ConfigMap came back as %+v", got)
	}

	sample := &demov1alpha1.Sample{
		ObjectMeta: metav1.ObjectMeta{Name: "round-trip", Namespace: "default"},
		Spec:       demov1alpha1.SampleSpec{Message: "hello world"},
	}
	if err := c.Create(ctx, sample); err != nil {
		t.Fatalf("create Sample (is the CRD installed?): %v", err)
	}
	gotSample := &demov1alpha1.Sample{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(sample), gotSample); err != nil {
		t.Fatalf("get Sample: %v", err)
	}
	if gotSample.Spec.Message != "hello world" || gotSample.Generation != 1 {
		t.Errorf("Sample came back as %+v", gotSample)
	}
}

// apiMinorFromGoMod is the minor version of go.mod's k8s.io/api (v0.37.2 -> "37"): the
// Kubernetes minor the control plane must match.
func apiMinorFromGoMod(t *testing.T) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/api v0\.(\d+)\.`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod does not require k8s.io/api v0.x.y")
	}
	return string(m[1])
}
