package cluster

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	admissionv1 "k8s.io/api/admission/v1"
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
// process, beside the namespace of the spec whose request it served.
func TestWebhookLogLinesSayWhichProcessServedThem(t *testing.T) {
	hooks := map[string]http.Handler{}
	server := servedBy{registered{hooks: hooks}}
	// As controller-runtime's builder constructs a webhook's logger.
	builders := func(base logr.Logger, req *admission.Request) logr.Logger {
		return base.WithValues("webhookKind", "Widget", "namespace", req.Namespace)
	}
	server.Register("/mutate", &admission.Webhook{LogConstructor: builders})
	server.Register("/validate", &admission.Webhook{})
	server.Register("/convert", http.NotFoundHandler())
	var lines []string
	base := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{})
	req := &admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Namespace: "spec-x7k2p", Name: "gear"}}
	for _, path := range []string{"/mutate", "/validate"} {
		hook, ok := hooks[path].(*admission.Webhook)
		if !ok {
			t.Fatalf("%s: registered as %T", path, hooks[path])
		}
		hook.LogConstructor(base, req).Info("defaulting")
	}
	if len(lines) != 2 {
		t.Fatalf("lines: %q", lines)
	}
	for _, line := range lines {
		if !strings.Contains(line, `"servedBy"="Ginkgo process 1, for every process"`) || !strings.Contains(line, `"namespace"="spec-x7k2p"`) {
			t.Errorf("a webhook's line says not which process served it and for which namespace: %s", line)
		}
	}
	if !strings.Contains(lines[0], `"webhookKind"="Widget"`) {
		t.Errorf("the webhook's own log constructor was dropped: %s", lines[0])
	}
	if _, ok := hooks["/convert"].(*admission.Webhook); ok {
		t.Errorf("the conversion handler became an admission webhook")
	}
}
