package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"example.com/operator-demo/testing/harness/operator"
)

// webhookManifests holds the configuration of marker's webhook.
const webhookManifests = "testing/harness/cluster/testdata/webhook"

// marked is the annotation marker's webhook gives every ConfigMap created.
const marked = "example.org/marked"

// marker is a toy operator: a controller of ConfigMaps that does nothing, a webhook that marks
// each ConfigMap created (marked), and one that refuses a ConfigMap called "refused".
var marker = operator.Subject{
	Scheme: clientgoscheme.Scheme,
	Setup: func(mgr ctrl.Manager, _ operator.Settings) error {
		return ctrl.NewControllerManagedBy(mgr).Named("marker").For(&corev1.ConfigMap{}).
			Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
	},
	Webhooks: func(mgr ctrl.Manager) error {
		mgr.GetWebhookServer().Register("/mark", &admission.Webhook{Handler: admission.HandlerFunc(func(_ context.Context, req admission.Request) admission.Response {
			cm := &corev1.ConfigMap{}
			if err := json.Unmarshal(req.Object.Raw, cm); err != nil {
				return admission.Errored(400, err)
			}
			metav1.SetMetaDataAnnotation(&cm.ObjectMeta, marked, "yes")
			raw, err := json.Marshal(cm)
			if err != nil {
				return admission.Errored(500, err)
			}
			return admission.PatchResponseFromRaw(req.Object.Raw, raw)
		})})
		mgr.GetWebhookServer().Register("/check", &admission.Webhook{Handler: admission.HandlerFunc(func(_ context.Context, req admission.Request) admission.Response {
			return admission.ValidationResponse(req.Name != "refused", "refused by its name")
		})})
		return nil
	},
	WebhookManifests: []string{webhookManifests},
	Kind:             &corev1.ConfigMap{},
	Controller:       "marker",
}

// TestTheEnvtestTier: StartControlPlane starts a control plane with the subject's webhooks served
// before it returns, which another process attaches to from its kubeconfig, and runs an operator
// in this process for a namespace until its release; its Stop leaves nothing running.
func TestTheEnvtestTier(t *testing.T) { //nolint:gocyclo // one t.Run a behaviour, on the one control plane it starts
	ctx := context.Background()
	c, kubeconfig, err := StartControlPlane(ctx, marker)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = c.Stop()
		}
	})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "first", Namespace: "default"}}

	t.Run("a ConfigMap created at once goes through the subject's webhooks", func(t *testing.T) {
		if err := c.Client.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
		if cm.Annotations[marked] != "yes" {
			t.Errorf("the ConfigMap created is not marked: %v", cm.Annotations)
		}
		refused := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "refused", Namespace: "default"}}
		if err := c.Client.Create(ctx, refused); err == nil || !strings.Contains(err.Error(), "refused by its name") {
			t.Errorf("create of a ConfigMap the validating webhook refuses: %v", err)
		}
	})

	t.Run("another process attaches from its kubeconfig, with envtest's client limits", func(t *testing.T) {
		attached, err := Attach(kubeconfig, marker)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSuffix(attached.Config.Host, "/") != strings.TrimSuffix(c.Config.Host, "/") || attached.Config.QPS != c.Config.QPS || attached.Config.Burst != c.Config.Burst {
			t.Errorf("attached to %s at %v QPS, burst %d; the control plane is %s at %v, %d", attached.Config.Host, attached.Config.QPS, attached.Config.Burst, c.Config.Host, c.Config.QPS, c.Config.Burst)
		}
		if err := attached.Client.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}); err != nil {
			t.Errorf("the attached client: %v", err)
		}
		if err := attached.Stop(); err != nil {
			t.Errorf("an attached cluster's Stop: %v", err)
		}
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}); err != nil {
			t.Errorf("once an attached cluster stopped: %v", err)
		}
	})

	t.Run("RunOperator runs the subject for a namespace; its release stops it", func(t *testing.T) {
		op, release, err := c.RunOperator("default", operator.Changes{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Read(); err != nil {
			t.Errorf("Read: %v", err)
		}
		if err := release(); err != nil { // else the control plane's Stop waits on its watches
			t.Errorf("release: %v", err)
		}
		failing := operator.Changes{Setup: func(ctrl.Manager, operator.Settings) error { return errors.New("no such kind") }}
		if _, _, err := c.RunOperator("default", failing); err == nil || !strings.Contains(err.Error(), "no such kind") {
			t.Errorf("RunOperator of a Setup that fails = %v, want its error", err)
		}
	})

	t.Run("webhooks that cannot be served fail saying why, their configurations removed", func(t *testing.T) {
		missingCRDs, failing := marker, marker
		missingCRDs.CRDs = []string{"config/crd/missing"}
		failing.Webhooks = func(ctrl.Manager) error { return errors.New("no such path") }
		for subject, want := range map[*operator.Subject]string{
			&missingCRDs: "point the CRDs' conversion at the webhooks: no config/crd/missing in",
			&failing:     "serve the webhooks on 127.0.0.1:",
		} {
			if _, err := ServeWebhooks(c.Config, *subject); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ServeWebhooks = %v, want an error saying %q", err, want)
			}
			for _, obj := range []client.Object{
				&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "marker"}},
				&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "checker"}},
			} {
				if err := c.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
					t.Errorf("the webhook configuration %s once ServeWebhooks failed: %v, want it gone", obj.GetName(), err)
				}
			}
		}
	})

	t.Run("a manifest the API server refuses fails ServeWebhooks, naming its directory", func(t *testing.T) {
		invalid := marker
		invalid.WebhookManifests = []string{t.TempDir()}
		unnamed := "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: unnamed}\nwebhooks: [{name: unnamed}]\n"
		if err := os.WriteFile(filepath.Join(invalid.WebhookManifests[0], "manifests.yaml"), []byte(unnamed), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ServeWebhooks(c.Config, invalid); err == nil || !strings.Contains(err.Error(), "install the webhook configurations of ["+invalid.WebhookManifests[0]+"]") {
			t.Errorf("ServeWebhooks of a configuration the API server refuses = %v, want an error naming its directory", err)
		}
	})

	t.Run("without WebhookManifests, a subject's webhooks are configured from config/webhook", func(t *testing.T) {
		manifests, err := os.ReadFile(filepath.Join("testdata", "webhook", "manifests.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		project := t.TempDir()
		for _, dir := range []string{"config/webhook", "config/crd/bases"} {
			if err := os.MkdirAll(filepath.Join(project, dir), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(project, "config", "webhook", "manifests.yaml"), manifests, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(project)
		defaults := marker
		defaults.WebhookManifests = nil
		stop, err := ServeWebhooks(c.Config, defaults)
		if err != nil {
			t.Fatal(err)
		}
		second := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "second", Namespace: "default"}}
		if err := c.Client.Create(ctx, second); err != nil || second.Annotations[marked] != "yes" {
			t.Errorf("a ConfigMap created through config/webhook's configuration: %v, annotations %v; want it marked", err, second.Annotations)
		}
		if err := stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})

	// Served again, for after the control plane's stop below.
	stopWebhooks, err := ServeWebhooks(c.Config, marker)
	if err != nil {
		t.Fatal(err)
	}
	stopped = true
	if err := c.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err := c.Client.List(ctx, &corev1.NamespaceList{}); err == nil {
		t.Error("the API server still answers once stopped")
	}
	if err := stopWebhooks(); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("stop of webhooks whose configurations cannot be removed = %v, want the API server's error", err)
	}
}

// TestAClusterThatCannotBeReachedIsAnError: a kubeconfig or a configuration no client can be built
// from, none at all, missing directories, webhooks that cannot be served: each an error that says
// so (StartControlPlane finds its webhook manifests before it starts anything).
func TestAClusterThatCannotBeReachedIsAnError(t *testing.T) {
	badCA := &rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("not a certificate")}}
	noCRDs := marker
	noCRDs.CRDs = []string{"config/crd/missing"}
	noManifests := marker
	noManifests.WebhookManifests = []string{"config/webhook/missing"}
	unservable := marker
	unservable.Webhooks = func(ctrl.Manager) error { return errors.New("no webhooks today") }
	for name, tt := range map[string]struct {
		err  error
		want string
	}{
		"no kubeconfig":                  {second(Attach(nil, marker)), "this cluster serves one test process"},
		"a kubeconfig that is not one":   {second(Attach([]byte("not: [a kubeconfig"), marker)), "read the control plane's kubeconfig"},
		"no client":                      {second(OnControlPlane(badCA, marker, nil)), "client for https://127.0.0.1:1"},
		"no CRDs":                        {third(StartControlPlane(context.Background(), noCRDs)), "no config/crd/missing in"},
		"no webhook manifests":           {second(ServeWebhooks(badCA, noManifests)), "no config/webhook/missing in"},
		"webhooks with no client":        {second(ServeWebhooks(badCA, marker)), "client for https://127.0.0.1:1"},
		"no webhooks to serve":           {third(StartControlPlane(context.Background(), noManifests)), "no config/webhook/missing in"},
		"webhooks that cannot be set up": {third(StartControlPlane(context.Background(), unservable)), "set up its manager: no webhooks today"},
	} {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error saying %q", name, tt.err, tt.want)
		}
	}
	stop, err := ServeWebhooks(badCA, operator.Subject{})
	if err != nil || stop() != nil {
		t.Errorf("ServeWebhooks of a subject without webhooks: %v; want nothing to serve or stop", err)
	}
}

func second[T any](_ T, err error) error { return err }

func third[T, U any](_ T, _ U, err error) error { return err }
