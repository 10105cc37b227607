package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// conversionCRD is the CRD whose conversion the webhook serves, as config/crd installs it: the
// rotator writes its CA into the CRD's spec.conversion.webhook.clientConfig.caBundle.
const conversionCRD = "samples.demo.example.com"

// certRotator is open-policy-agent/cert-controller's rotator of the conversion webhook's serving
// certificate: it issues a CA and, from it, a certificate for service (the DNS name the API server
// calls the webhook by, <service>.<namespace>.svc) into secret (<namespace>/<name>), which the
// Deployment mounts in certDir; it writes the CA into conversionCRD's conversion, and renews both
// before they expire. It closes ready once the certificate is in certDir and the CA in the CRD.
// Every replica runs it, leader or not: each serves the webhook behind the Service.
func certRotator(secret, service, certDir string, ready chan struct{}) (*rotator.CertRotator, error) {
	namespace, name, _ := strings.Cut(secret, "/")
	switch {
	case namespace == "" || name == "":
		return nil, fmt.Errorf("--webhook-cert-secret=%q: want <namespace>/<name>, the Secret to issue the certificate into", secret)
	case service == "":
		return nil, errors.New("--webhook-cert-secret needs --webhook-service, the DNS name to issue the certificate for (<service>.<namespace>.svc)")
	case certDir == "":
		return nil, errors.New("--webhook-cert-secret needs --webhook-cert-dir, where the Secret is mounted")
	}
	return &rotator.CertRotator{
		SecretKey:      types.NamespacedName{Namespace: namespace, Name: name},
		CertDir:        certDir,
		CAName:         "operator-demo-ca",
		CAOrganization: "operator-demo",
		DNSName:        service,
		IsReady:        ready,
		Webhooks:       []rotator.WebhookInfo{{Name: conversionCRD, Type: rotator.CRDConversion}},
		// The CA goes into the CRD once the certificate it signed is mounted, and served.
		EnableReadinessCheck: true,
	}, nil
}

// newWebhookServer is the conversion webhook's server of opts: none (controller-runtime's port -1)
// without a certificate directory; otherwise one that drains before the Pod stops (draining), and,
// with secret, starts once the certificate the returned rotator issues for service is in that
// directory (certRotator, afterCertificate).
func newWebhookServer(opts webhook.Options, secret, service string) (webhook.Server, *rotator.CertRotator, error) {
	if opts.CertDir == "" {
		opts.Port = -1 // nothing to serve it with
	}
	server := webhook.NewServer(opts)
	if opts.CertDir == "" {
		return server, nil, nil
	}
	served := newDraining(server, drainFor)
	if secret == "" {
		return served, nil, nil
	}
	ready := make(chan struct{})
	certificate, err := certRotator(secret, service, opts.CertDir, ready)
	if err != nil {
		return nil, nil, err
	}
	return afterCertificate{Server: served, ready: ready}, certificate, nil
}

// drainPath is where the kubelet calls the Pod's preStop hook (config/default), once the Pod is
// marked for deletion and before the manager gets SIGTERM; drainFor is how long the call lasts.
const (
	drainPath = "/drain"
	drainFor  = 5 * time.Second
)

// draining is a webhook server that stops keeping connections open once it is told to drain (its
// handler at drainPath): from then on it answers every webhook call with Connection: close, and
// the API server's next call dials afresh, through the Service, which by the end of the drain
// sends it to a Pod that stays. The drain's call lasts its duration, in which the Pod's endpoint
// turns not ready and kube-proxy stops sending it new connections; only then does the kubelet send
// SIGTERM and the manager stop listening. Without the drain, a connection the API server kept open
// to the Pod is closed under a call it is sending ("broken pipe"); without the wait, calls still
// routed to the Pod find nothing listening ("connection refused"), or, once its IP is gone, no
// route at all.
type draining struct {
	webhook.Server
	// started is whether the drain has begun: shared by the copies of the server.
	started *atomic.Bool
}

// newDraining is server, draining for d from the first call of its drainPath.
func newDraining(server webhook.Server, d time.Duration) draining {
	s := draining{Server: server, started: &atomic.Bool{}}
	server.Register(drainPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.started.Store(true)
		select {
		case <-time.After(d):
		case <-r.Context().Done():
		}
		w.Header().Set("Connection", "close")
		_, _ = fmt.Fprintf(w, "drained for %s\n", d) // the kubelet reads only the status
	}))
	return s
}

// Register registers hook at path, answering with Connection: close once the drain has begun.
func (s draining) Register(path string, hook http.Handler) {
	s.Server.Register(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.started.Load() {
			w.Header().Set("Connection", "close")
		}
		hook.ServeHTTP(w, r)
	}))
}

// withRotator is opts for a manager that runs certificate's rotator (nil: opts as they
// are). The rotator writes through the manager's client:
//   - whose reads wait for the cache to have seen its writes (controllers.ManagerOptions): the
//     cache holds the Secrets of its Secret's namespace alone, where the operator's RBAC lets it
//     list them; at the cluster scope the list is refused, and its write waits on a cache that
//     never syncs;
//   - which sends no update of the CRD that changes nothing (unchangedUpdatesSkipped).
func withRotator(certificate *rotator.CertRotator, opts ctrl.Options) ctrl.Options {
	if certificate == nil {
		return opts
	}
	if opts.Cache.ByObject == nil {
		opts.Cache.ByObject = map[client.Object]cache.ByObject{}
	}
	opts.Cache.ByObject[&corev1.Secret{}] = cache.ByObject{Namespaces: map[string]cache.Config{certificate.SecretKey.Namespace: {}}}
	newClient := opts.NewClient
	if newClient == nil {
		newClient = client.New
	}
	opts.NewClient = func(config *rest.Config, options client.Options) (client.Client, error) {
		c, err := newClient(config, options)
		if err != nil {
			return nil, err
		}
		return unchangedUpdatesSkipped{c}, nil
	}
	return opts
}

// afterCertificate is a webhook server that starts once its certificate is ready (the rotator's
// IsReady): until then it answers nothing, and its StartedChecker, the manager's readiness,
// fails. Started before, it would find no certificate in its directory and stop the manager.
type afterCertificate struct {
	webhook.Server
	ready <-chan struct{}
}

// Start starts the server once its certificate is ready; stopped before, it returns.
func (s afterCertificate) Start(ctx context.Context) error {
	select {
	case <-s.ready:
		return s.Server.Start(ctx)
	case <-ctx.Done():
		return nil
	}
}

// unchangedUpdatesSkipped is the manager's client that sends no update of an unstructured object
// that would change nothing the API server holds. The rotator updates the CRD it injects its CA
// into, as unstructured, on every start, whether the CA is there already or not: on a cluster at
// rest, a restarted operator would write the CRD each time.
type unchangedUpdatesSkipped struct{ client.Client }

// Update reads an unstructured object from the API server (the manager's client does not cache
// unstructured reads) and sends the update only if obj differs from it; any other it sends.
func (c unchangedUpdatesSkipped) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return c.Client.Update(ctx, obj, opts...)
	}
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(u.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(u), stored); err != nil {
		return fmt.Errorf("read %s %s before updating it: %w", u.GetKind(), client.ObjectKeyFromObject(u), err)
	}
	if equality.Semantic.DeepEqual(stored.Object, u.Object) {
		return nil
	}
	return c.Client.Update(ctx, obj, opts...)
}
