package cluster

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// registered is a webhook server that keeps what is registered with it.
type registered struct {
	webhook.Server
	hooks map[string]http.Handler
}

func (r registered) Register(path string, hook http.Handler) { r.hooks[path] = hook }

// TestWebhookLogLinesSayWhichProcessServedThem: under ginkgo -p a webhook's lines land in the
// output of whatever spec the first process runs; each says it was served there, for every
// process, and, beside the namespace of the request, for which spec of which process, as the
// namespace's annotations name them (read once for a namespace). A namespace that is no spec's,
// or that cannot be read, and a request of none, name no spec.
func TestWebhookLogLinesSayWhichProcessServedThem(t *testing.T) {
	hooks, gets := map[string]http.Handler{}, 0
	namespaces := fake.NewClientBuilder().WithObjects(
		// The annotations' names, as a namespace shows them to whoever reads it.
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "spec-x7k2p", Annotations: map[string]string{"harness.testing/ginkgo-process": "3", "harness.testing/spec": "Widget defaults its size"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
	).WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		gets++
		if key.Name == "unreadable" {
			return errors.New("namespaces is forbidden")
		}
		return c.Get(ctx, key, obj, opts...)
	}}).Build()
	server := &servedBy{Server: registered{hooks: hooks}, namespaces: namespaces}
	// As controller-runtime's builder constructs a webhook's logger.
	builders := func(base logr.Logger, req *admission.Request) logr.Logger {
		return base.WithValues("webhookKind", "Widget", "namespace", req.Namespace)
	}
	server.Register("/mutate", &admission.Webhook{LogConstructor: builders})
	server.Register("/validate", &admission.Webhook{})
	server.Register("/convert", http.NotFoundHandler())
	var lines []string
	base := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{})
	request := func(namespace string) *admission.Request {
		return &admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Namespace: namespace, Name: "gear"}}
	}
	for _, path := range []string{"/mutate", "/validate"} {
		hook, ok := hooks[path].(*admission.Webhook)
		if !ok {
			t.Fatalf("%s: registered as %T", path, hooks[path])
		}
		hook.LogConstructor(base, request("spec-x7k2p")).Info("defaulting")
	}
	validate, _ := hooks["/validate"].(*admission.Webhook)
	for _, req := range []*admission.Request{request("default"), request("unreadable"), request(""), nil} {
		validate.LogConstructor(base, req).Info("validating")
	}
	if len(lines) != 6 {
		t.Fatalf("lines: %q", lines)
	}
	expectServedFor(t, lines, 2)
	if !strings.Contains(lines[0], `"webhookKind"="Widget"`) {
		t.Errorf("the webhook's own log constructor was dropped: %s", lines[0])
	}
	if gets != 3 {
		t.Errorf("the namespaces were read %d times, want 3: the spec's once, the others each time, none for no namespace", gets)
	}
	if _, ok := hooks["/convert"].(*admission.Webhook); ok {
		t.Errorf("the conversion handler became an admission webhook")
	}
}

// expectServedFor checks that each line says the first process served it, that the first spec
// lines (of the request in spec-x7k2p) name that spec and its process, and that the others name none.
func expectServedFor(t *testing.T, lines []string, spec int) {
	t.Helper()
	for i, line := range lines {
		served := strings.Contains(line, `"servedBy"="Ginkgo process 1, for every process"`)
		servedFor := strings.Contains(line, `"servedFor"="Ginkgo process 3, spec \"Widget defaults its size\""`)
		if !served || servedFor != (i < spec) || i >= spec && strings.Contains(line, "servedFor") || i < spec && !strings.Contains(line, `"namespace"="spec-x7k2p"`) {
			t.Errorf("a webhook's line says not which process served it, or names a spec it did not serve: %s", line)
		}
	}
}
