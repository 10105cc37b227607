package controlplane

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// TestControlPlane starts envtest with the binaries that `make setup-envtest` provides and proves
// they make a working control plane of the Kubernetes minor the tests run on (KubernetesMinor): the API server reports it,
// kubectl parses it, and objects (built-in and Sample) round-trip through the API server.
func TestControlPlane(t *testing.T) {
	cp, err := Start("")
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
	if err := demov1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("the API server and kubectl report the Kubernetes minor the tests run on", func(t *testing.T) {
		version, err := discovery.NewDiscoveryClientForConfigOrDie(cp.Config).ServerVersion()
		if err != nil {
			t.Fatalf("server version: %v", err)
		}
		root, err := RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		want, err := KubernetesMinor(root)
		if err != nil {
			t.Fatal(err)
		}
		if got := version.Major + "." + version.Minor; got != want {
			t.Errorf("kube-apiserver reports %s (%s); the tests run on %s (ENVTEST_K8S_VERSION, else go.mod's k8s.io/api)", version.GitVersion, got, want)
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

	t.Run("a Sample round-trips (the CRD is installed)", func(t *testing.T) {
		sample := &demov1alpha1.Sample{
			ObjectMeta: metav1.ObjectMeta{Name: "round-trip", Namespace: "default"},
			Spec:       demov1alpha1.SampleSpec{Message: "hello world"},
		}
		got := &demov1alpha1.Sample{}
		roundTrip(t, c, sample, got)
		if got.Spec.Message != "hello world" || got.Generation != 1 {
			t.Errorf("Sample came back as %+v", got)
		}
	})
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
func kubectlServerVersion(t *testing.T, cp *ControlPlane) string {
	t.Helper()
	user, err := cp.AddAdmin("kubectl")
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
