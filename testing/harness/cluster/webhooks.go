package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
)

// ServeWebhooks installs subject's WebhookManifests, pointed at this process, into the API server
// cfg reaches, points the conversion of each CRD whose kind subject's scheme can convert there
// too, and serves subject's Webhooks from a manager of their own: they answer for every test
// process, and while a spec has stopped its operator; their log lines say so (servedBy). It
// returns once they answer, with a func that stops them and removes the configurations. Call it
// in the one process that outlives the others (Ginkgo's first).
func ServeWebhooks(cfg *rest.Config, subject operator.Subject) (stop func() error, err error) {
	if subject.Webhooks == nil {
		return func() error { return nil }, nil
	}
	paths, err := controlplane.FindAll(subject.WebhookManifests, "config/webhook")
	if err != nil {
		return nil, err
	}
	install := &envtest.WebhookInstallOptions{Paths: paths}
	if err := install.Install(cfg); err != nil {
		return nil, fmt.Errorf("install the webhook configurations of %v: %w", paths, err)
	}
	uninstall := func() error {
		c, err := client.New(cfg, client.Options{})
		if err != nil {
			return err
		}
		var errs []error
		for _, obj := range install.MutatingWebhooks {
			errs = append(errs, client.IgnoreNotFound(c.Delete(context.Background(), obj)))
		}
		for _, obj := range install.ValidatingWebhooks {
			errs = append(errs, client.IgnoreNotFound(c.Delete(context.Background(), obj)))
		}
		return errors.Join(append(errs, install.Cleanup())...)
	}
	crds, err := controlplane.FindAll(subject.CRDs, controlplane.DefaultCRDs)
	if err == nil {
		// The CRDs again, converting through this process's /convert where the scheme can.
		_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: crds, Scheme: subject.Scheme, WebhookOptions: *install, ErrorIfPathMissing: true})
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("point the CRDs' conversion at the webhooks: %w", err), uninstall())
	}
	server := servedBy{webhook.NewServer(webhook.Options{
		Host: install.LocalServingHost, Port: install.LocalServingPort, CertDir: install.LocalServingCertDir,
	})}
	stopManager, err := operator.StartManager(cfg, ctrl.Options{Scheme: subject.Scheme, WebhookServer: server}, subject.Webhooks,
		func(context.Context, ctrl.Manager) error { return server.StartedChecker()(nil) })
	if err != nil {
		return nil, errors.Join(fmt.Errorf("serve the webhooks on %s:%d: %w", install.LocalServingHost, install.LocalServingPort, err), uninstall())
	}
	return func() error { return errors.Join(stopManager(), uninstall()) }, nil
}

// servedByWhom is what each log line of an admission webhook says of the process that served it:
// under `ginkgo -p` they land in the output of whatever spec the first process runs.
const servedByWhom = "Ginkgo process 1, for every process"

// servedBy is a webhook server whose admission webhooks log which process served them.
type servedBy struct{ webhook.Server }

func (s servedBy) Register(path string, hook http.Handler) {
	if wh, ok := hook.(*admission.Webhook); ok {
		wh.LogConstructor = logServedBy(wh.LogConstructor)
	}
	s.Server.Register(path, hook)
}

// logServedBy is construct (nil: admission's default) with servedBy in each line.
func logServedBy(construct func(logr.Logger, *admission.Request) logr.Logger) func(logr.Logger, *admission.Request) logr.Logger {
	if construct == nil {
		construct = admission.DefaultLogConstructor
	}
	return func(base logr.Logger, req *admission.Request) logr.Logger {
		return construct(base.WithValues("servedBy", servedByWhom), req)
	}
}
