package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"
)

// TestCertRotatorIssuesForTheServiceAndInjectsIntoTheCRDConfigInstalls: the rotator keeps the
// certificate in the Secret the flag names, issued for the Service's DNS name, mounted in the
// webhook's certificate directory, and writes its CA into the conversion of the CRD that
// config/crd installs, on every replica: each serves the webhook behind the Service.
func TestCertRotatorIssuesForTheServiceAndInjectsIntoTheCRDConfigInstalls(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "config", "crd", "bases", "demo.example.com_samples.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(raw, crd); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	cr, err := certRotator("demo-system/demo-webhook-server-cert", "demo-webhook-service.demo-system.svc", "/certs", ready)
	if err != nil {
		t.Fatal(err)
	}
	if cr.SecretKey != (types.NamespacedName{Namespace: "demo-system", Name: "demo-webhook-server-cert"}) {
		t.Errorf("SecretKey = %v, want demo-system/demo-webhook-server-cert", cr.SecretKey)
	}
	if cr.DNSName != "demo-webhook-service.demo-system.svc" || cr.CertDir != "/certs" || cr.IsReady != ready {
		t.Errorf("DNSName %q, CertDir %q, IsReady %v: want the Service's name, the webhook's certificate directory, ready", cr.DNSName, cr.CertDir, cr.IsReady)
	}
	if len(cr.Webhooks) != 1 || cr.Webhooks[0] != (rotator.WebhookInfo{Name: crd.Name, Type: rotator.CRDConversion}) {
		t.Errorf("Webhooks = %v, want the conversion of %s, the CRD config/crd installs", cr.Webhooks, crd.Name)
	}
	if cr.RequireLeaderElection || !cr.EnableReadinessCheck || cr.CAName == "" || cr.CAOrganization == "" {
		t.Errorf("RequireLeaderElection %t, EnableReadinessCheck %t, CA %q of %q: want every replica to issue and inject once its certificate is mounted, by a CA named", cr.RequireLeaderElection, cr.EnableReadinessCheck, cr.CAName, cr.CAOrganization)
	}
}

func TestCertRotatorRefusesWhatItCannotIssueFor(t *testing.T) {
	for _, tt := range []struct{ secret, service, certDir, want string }{
		{"demo-webhook-server-cert", "svc.demo.svc", "/certs", "<namespace>/<name>"},
		{"demo-system/", "svc.demo.svc", "/certs", "<namespace>/<name>"},
		{"/demo-webhook-server-cert", "svc.demo.svc", "/certs", "<namespace>/<name>"},
		{"demo-system/cert", "", "/certs", "--webhook-service"},
		{"demo-system/cert", "svc.demo.svc", "", "--webhook-cert-dir"},
	} {
		if _, err := certRotator(tt.secret, tt.service, tt.certDir, make(chan struct{})); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("certRotator(%q, %q, %q) = %v, want an error naming %s", tt.secret, tt.service, tt.certDir, err, tt.want)
		}
	}
}

// startRecorder is a webhook server that records its start.
type startRecorder struct {
	webhook.Server
	started chan struct{}
}

func (s startRecorder) Start(context.Context) error { close(s.started); return nil }

// TestAfterCertificateStartsTheServerOnceItsCertificateIsReady: the webhook server does not start
// (and so answers no readiness check) until the rotator says its certificate is ready; stopped
// before, it returns without starting.
func TestAfterCertificateStartsTheServerOnceItsCertificateIsReady(t *testing.T) {
	ready := make(chan struct{})
	inner := startRecorder{started: make(chan struct{})}
	done := make(chan error)
	go func() { done <- afterCertificate{Server: inner, ready: ready}.Start(t.Context()) }()
	select {
	case <-inner.started:
		t.Fatal("the server started before its certificate was ready")
	case <-time.After(100 * time.Millisecond):
	}
	close(ready)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case <-inner.started:
	default:
		t.Fatal("the server did not start once its certificate was ready")
	}

	stopped := startRecorder{started: make(chan struct{})}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := (afterCertificate{Server: stopped, ready: make(chan struct{})}).Start(ctx); err != nil {
		t.Errorf("stopped before its certificate: Start = %v, want nil", err)
	}
	select {
	case <-stopped.started:
		t.Error("stopped before its certificate, the server started")
	default:
	}
}

// TestNewWebhookServerServesWhatItHasACertificateFor: no server without a certificate directory;
// one that serves at once with a directory alone (the certificate comes from elsewhere); with the
// rotator's Secret, one that waits for the certificate the rotator issues into that directory.
func TestNewWebhookServerServesWhatItHasACertificateFor(t *testing.T) {
	server, cr, err := newWebhookServer(webhook.Options{Port: 9443}, "", "")
	if err != nil || portOf(server) != -1 || cr != nil {
		t.Errorf("without a certificate directory: %T %+v, rotator %v, %v; want a server on port -1 (none), no rotator", server, server, cr, err)
	}
	server, cr, err = newWebhookServer(webhook.Options{Port: 9443, CertDir: "/certs"}, "", "")
	if s, ok := server.(draining); err != nil || !ok || portOf(s.Server) != 9443 || cr != nil {
		t.Errorf("with a certificate directory alone: %T, rotator %v, %v; want a server on 9443 that starts at once, no rotator", server, cr, err)
	}
	server, cr, err = newWebhookServer(webhook.Options{Port: 9443, CertDir: "/certs"}, "demo-system/cert", "svc.demo-system.svc")
	if s, ok := server.(afterCertificate); err != nil || !ok || cr == nil || cr.CertDir != "/certs" || s.ready == nil {
		t.Errorf("with the rotator's Secret: %T, rotator %v, %v; want a server that waits for the rotator's certificate in /certs", server, cr, err)
	}
	if _, _, err := newWebhookServer(webhook.Options{Port: 9443, CertDir: "/certs"}, "cert", "svc.demo-system.svc"); err == nil {
		t.Error("with a Secret that names no namespace: no error")
	}
}

// portOf is the port of controller-runtime's webhook server, 0 for any other server.
func portOf(server webhook.Server) int {
	if s, ok := server.(*webhook.DefaultServer); ok {
		return s.Options.Port
	}
	return 0
}

// TestEveryWebhookServerThatServesDrains: with a certificate directory, with or without the
// rotator's Secret, the server drains before its Pod stops, its drain served at drainPath.
func TestEveryWebhookServerThatServesDrains(t *testing.T) {
	for _, secret := range []string{"", "demo-system/cert"} {
		server, _, err := newWebhookServer(webhook.Options{Port: 9443, CertDir: "/certs"}, secret, "svc.demo-system.svc")
		if err != nil {
			t.Fatalf("with Secret %q: %v", secret, err)
		}
		if after, ok := server.(afterCertificate); ok {
			server = after.Server
		}
		_, pattern := server.WebhookMux().Handler(httptest.NewRequest(http.MethodGet, drainPath, nil))
		if _, ok := server.(draining); !ok || pattern != drainPath {
			t.Errorf("with Secret %q: a %T serving %s at %q; want one that drains, at %s", secret, server, drainPath, pattern, drainPath)
		}
	}
}

// handlers is a webhook server that keeps what is registered on it, by path.
type handlers struct {
	webhook.Server
	byPath map[string]http.Handler
}

func (h handlers) Register(path string, hook http.Handler) { h.byPath[path] = hook }

// serve is the response of h's handler at path to a request with ctx.
func (h handlers) serve(ctx context.Context, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.byPath[path].ServeHTTP(rec, httptest.NewRequestWithContext(ctx, method, path, nil))
	return rec
}

// TestDrainingClosesEveryConnectionOnceTheDrainHasBegun: a webhook call keeps its connection open
// until the kubelet's preStop hook calls drainPath; from then on each is answered with Connection:
// close. The hook's call lasts the drain's duration (here, until the kubelet gives up on it).
func TestDrainingClosesEveryConnectionOnceTheDrainHasBegun(t *testing.T) {
	inner := handlers{byPath: map[string]http.Handler{}}
	s := newDraining(inner, time.Hour)
	s.Register("/convert", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	if rec := inner.serve(t.Context(), http.MethodPost, "/convert"); rec.Code != http.StatusOK || rec.Header().Get("Connection") != "" {
		t.Fatalf("before the drain: %d, Connection %q; want 200, the connection kept open", rec.Code, rec.Header().Get("Connection"))
	}

	hook, giveUp := context.WithCancel(t.Context())
	drained := make(chan *httptest.ResponseRecorder, 1)
	go func() { drained <- inner.serve(hook, http.MethodGet, drainPath) }()
	deadline := time.Now().Add(5 * time.Second)
	for !s.started.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the drain had not begun 5 s after the preStop hook's call")
		}
		select {
		case <-drained:
			t.Fatal("the preStop hook's call returned before the drain began")
		case <-time.After(time.Millisecond):
		}
	}
	if rec := inner.serve(t.Context(), http.MethodPost, "/convert"); rec.Code != http.StatusOK || rec.Header().Get("Connection") != "close" {
		t.Errorf("during the drain: %d, Connection %q; want 200, Connection close", rec.Code, rec.Header().Get("Connection"))
	}
	select {
	case <-drained:
		t.Fatal("the preStop hook's call returned before the drain's hour was up")
	default:
	}
	giveUp()
	select {
	case rec := <-drained:
		if rec.Code != http.StatusOK {
			t.Errorf("the preStop hook's call, given up: %d, want 200", rec.Code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the preStop hook's call still runs 5 s after the kubelet gave up on it")
	}
}

// TestTheDrainLastsItsDuration: the preStop hook's call returns once the drain's duration is up,
// with the kubelet still waiting.
func TestTheDrainLastsItsDuration(t *testing.T) {
	inner := handlers{byPath: map[string]http.Handler{}}
	newDraining(inner, 0)
	drained := make(chan *httptest.ResponseRecorder, 1)
	go func() { drained <- inner.serve(t.Context(), http.MethodGet, drainPath) }()
	select {
	case rec := <-drained:
		if rec.Code != http.StatusOK || rec.Header().Get("Connection") != "close" {
			t.Errorf("the drain: %d, Connection %q; want 200, Connection close", rec.Code, rec.Header().Get("Connection"))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a drain of 0 s still runs after 5 s")
	}
}

// TestWithRotatorCachesTheSecretsOfItsNamespaceAloneAndSkipsUnchangedUpdates: with the rotator,
// the manager's cache holds Secrets of the namespace of the rotator's Secret alone, where the
// operator may list them, beside what the options held, and its client sends no update that
// changes nothing; without it, the options are left as they are.
func TestWithRotatorCachesTheSecretsOfItsNamespaceAloneAndSkipsUnchangedUpdates(t *testing.T) {
	configMaps := cache.ByObject{Label: labels.Everything()}
	opts := ctrl.Options{Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: configMaps}}}
	if got := withRotator(nil, opts); len(got.Cache.ByObject) != 1 {
		t.Errorf("without a rotator: ByObject = %v, want the options' own", got.Cache.ByObject)
	}
	got := withRotator(&rotator.CertRotator{SecretKey: types.NamespacedName{Namespace: "demo-system", Name: "cert"}}, opts)
	var secrets *cache.ByObject
	for obj, by := range got.Cache.ByObject {
		if _, ok := obj.(*corev1.Secret); ok {
			secrets = &by
		}
	}
	if secrets == nil || len(secrets.Namespaces) != 1 || len(got.Cache.ByObject) != 2 {
		t.Fatalf("with a rotator: ByObject = %v, want the ConfigMaps' and the Secrets' of demo-system alone", got.Cache.ByObject)
	}
	if _, ok := secrets.Namespaces["demo-system"]; !ok {
		t.Errorf("the cache's Secrets are those of %v, want demo-system's", secrets.Namespaces)
	}
	if c, err := got.NewClient(&rest.Config{Host: "https://127.0.0.1:1"}, client.Options{}); err != nil {
		t.Errorf("with a rotator, the manager's client: %v", err)
	} else if _, ok := c.(unchangedUpdatesSkipped); !ok {
		t.Errorf("with a rotator, the manager's client is a %T, want one that skips unchanged updates", c)
	}
	if got := withRotator(&rotator.CertRotator{SecretKey: types.NamespacedName{Namespace: "x", Name: "cert"}}, ctrl.Options{}); len(got.Cache.ByObject) != 1 {
		t.Errorf("with a rotator, on options without ByObject: %v, want the Secrets' alone", got.Cache.ByObject)
	}
}

// TestUnchangedUpdatesSkippedSendsOnlyUpdatesThatChangeSomething: the rotator updates the CRD it
// injects its CA into at every start, whether the CA is there or not; an update that would change
// nothing the API server holds is not sent, one that changes the CA is, and so is every update of
// a typed object.
func TestUnchangedUpdatesSkippedSendsOnlyUpdatesThatChangeSomething(t *testing.T) {
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	stored.SetName(conversionCRD)
	if err := unstructured.SetNestedField(stored.Object, "Q0E=", "spec", "conversion", "webhook", "clientConfig", "caBundle"); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-system", Name: "cert"}}
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	updates := 0
	c := unchangedUpdatesSkipped{fake.NewClientBuilder().WithScheme(scheme).WithObjects(stored, secret).WithInterceptorFuncs(interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			updates++
			return c.Update(ctx, obj, opts...)
		},
	}).Build()}
	ctx := context.Background()
	read := func() *unstructured.Unstructured {
		t.Helper()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(stored.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(stored), u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	if err := c.Update(ctx, read()); err != nil || updates != 0 {
		t.Errorf("the CRD updated unchanged: %v, %d updates sent; want none", err, updates)
	}
	changed := read()
	if err := unstructured.SetNestedField(changed.Object, "bmV3", "spec", "conversion", "webhook", "clientConfig", "caBundle"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, changed); err != nil || updates != 1 {
		t.Errorf("the CRD updated with a new CA: %v, %d updates sent; want 1", err, updates)
	}
	if ca, _, _ := unstructured.NestedString(read().Object, "spec", "conversion", "webhook", "clientConfig", "caBundle"); ca != "bmV3" {
		t.Errorf("the CRD's caBundle after the update = %q, want the new CA", ca)
	}
	if err := c.Update(ctx, secret.DeepCopy()); err != nil || updates != 2 {
		t.Errorf("a typed Secret updated: %v, %d updates sent; want 2", err, updates)
	}
}
