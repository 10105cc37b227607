// Package cluster is where the scenarios run: the envtest control plane, shared by every test
// process of a suite, with an operator in the test process for each spec (StartControlPlane), or
// a cluster that another Provider starts or connects to.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/operator"
)

// Cluster is where the scenarios run.
type Cluster struct {
	// Config reaches the API server as an administrator; Client reads and writes straight to it,
	// with no cache in between.
	Config *rest.Config
	Client client.Client
	// RunOperator makes sure an operator, the subject as changes change it, reconciles namespace,
	// and returns it with what the spec's cleanup does to it: one of the spec's own stops (Down);
	// one shared by every spec is started again if the spec stopped it (Up).
	RunOperator func(namespace string, changes operator.Changes) (op *operator.Operator, release func() error, err error)
	// CollectsGarbage says that a garbage collector deletes what an object owned once it is gone
	// (on envtest none runs).
	CollectsGarbage bool
	// Webhooks are the subject's webhooks where this test process serves them for every spec
	// (envtest: in the process that started the control plane, Ginkgo's first; the local e2e
	// tier); nil where the operator serves them itself (a cluster it is deployed to, where
	// RunOperator's Down takes them down with it), or in a process that does not serve them.
	Webhooks *Webhooks
	// Stop releases the cluster.
	Stop func() error
}

// Provider starts, or connects to, a cluster with subject in it, in one test process, and returns
// it with the kubeconfig another process passes to Attach to use it too (nil: it serves one).
type Provider func(ctx context.Context, subject operator.Subject) (*Cluster, []byte, error)

// StartControlPlane is the envtest tier's Provider: a control plane of this run's own, with the
// operator's CRDs installed and its webhooks served, and an operator in this process for each
// namespace. envtest installs the webhook configurations (subject's WebhookManifests, as
// ServeWebhooks finds them); the CRDs are installed once, with the conversion of each whose kind
// the webhooks convert (installCRDs) pointed at them from the start. They go with the control plane.
func StartControlPlane(_ context.Context, subject operator.Subject) (*Cluster, []byte, error) {
	hooks := envtest.WebhookInstallOptions{}
	if subject.Webhooks != nil {
		paths, err := controlplane.FindAll(subject.WebhookManifests, DefaultWebhookManifests)
		if err != nil {
			return nil, nil, err
		}
		hooks.Paths = paths
	}
	var crds []string
	env, err := controlplane.Start(subject.CRDs, func(env *envtest.Environment) {
		if env.WebhookInstallOptions = hooks; subject.Webhooks != nil {
			// serve installs them, once the webhooks are registered: only then is it known which
			// kinds they convert.
			crds, env.CRDDirectoryPaths = env.CRDDirectoryPaths, nil
		}
	})
	if err != nil {
		return nil, nil, err
	}
	served, err := NewWebhooks(func() (func() error, error) {
		return serve(env.Config, subject, &env.WebhookInstallOptions, crds)
	})
	if err != nil {
		return nil, nil, errors.Join(err, env.Stop())
	}
	stop := func() error { return errors.Join(served.Down(), env.Stop()) }
	c, err := OnControlPlane(env.Config, subject, stop)
	if err != nil {
		return nil, nil, errors.Join(err, stop())
	}
	c.Webhooks = served
	return c, env.KubeConfig, nil
}

// Webhooks are a subject's webhooks that the test process serves, for every spec of the run, and
// that a spec may take down as a cluster's go down with the operator's Pods: then every
// conversion through them fails, as it does there. (Admission differs: where ServeWebhooks
// installed the webhook configurations, a warm control plane's or the local tier's, Down removes
// them, and the API server admits without asking.) They serve every spec, so only a spec that
// runs alone (Ginkgo's Serial, in the process that serves them) may take them down, and it brings
// them up again. Down and Up wait for each other: a cleanup's Up after an interrupted one's.
type Webhooks struct {
	mu    sync.Mutex
	serve func() (stop func() error, err error)
	stop  func() error // nil while down
}

// NewWebhooks serves webhooks with serve, which returns once they answer, and returns them up.
func NewWebhooks(serve func() (stop func() error, err error)) (*Webhooks, error) {
	w := &Webhooks{serve: serve}
	return w, w.Up()
}

// Down stops serving them and waits until they have stopped. Webhooks that are down stay so.
func (w *Webhooks) Down() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop == nil {
		return nil
	}
	stop := w.stop
	w.stop = nil
	if err := stop(); err != nil {
		return fmt.Errorf("stop serving the webhooks: %w", err)
	}
	return nil
}

// Up serves them again as they were served first, and returns once they answer. Webhooks that
// are up stay so.
func (w *Webhooks) Up() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		return nil
	}
	stop, err := w.serve()
	if err != nil {
		return err
	}
	w.stop = stop
	return nil
}

// Attach returns the cluster that another process's Provider started, from the kubeconfig it
// returned there.
func Attach(kubeconfig []byte, subject operator.Subject) (*Cluster, error) {
	if len(kubeconfig) == 0 {
		return nil, errors.New("this cluster serves one test process: run it without -p / --procs")
	}
	cfg, err := ConfigOf(kubeconfig)
	if err != nil {
		return nil, err
	}
	return OnControlPlane(cfg, subject, func() error { return nil })
}

// ConfigOf reaches the control plane that kubeconfig describes, with envtest's client limits
// (a kubeconfig carries none).
func ConfigOf(kubeconfig []byte) (*rest.Config, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("read the control plane's kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	return cfg, nil
}

// OnControlPlane is the envtest tier on the control plane cfg reaches as an administrator: an
// operator in this process for each namespace (operator.InProcess). stop releases the control
// plane.
func OnControlPlane(cfg *rest.Config, subject operator.Subject, stop func() error) (*Cluster, error) {
	c, err := client.New(cfg, client.Options{Scheme: subject.Scheme})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	return &Cluster{Config: cfg, Client: c, Stop: stop, RunOperator: func(namespace string, changes operator.Changes) (*operator.Operator, func() error, error) {
		op, err := operator.InProcess(cfg, namespace, subject, changes)
		return op, op.Down, err
	}}, nil
}

// DefaultWebhookManifests is where a kubebuilder project keeps its webhook configurations.
const DefaultWebhookManifests = "config/webhook"

// ServeWebhooks installs subject's WebhookManifests (DefaultWebhookManifests when none), pointed
// at this process, into the running control plane cfg reaches, and serves subject's Webhooks,
// with the conversion of each CRD whose kind they convert pointed there too (serve). It returns
// once they answer, with a func that stops them and removes the configurations. The API server
// converts through them once its informer has seen the CRDs updated: a control plane of the run's
// own (StartControlPlane) has them converting from the start.
func ServeWebhooks(cfg *rest.Config, subject operator.Subject) (stop func() error, err error) {
	if subject.Webhooks == nil {
		return func() error { return nil }, nil
	}
	paths, err := controlplane.FindAll(subject.WebhookManifests, DefaultWebhookManifests)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	install := &envtest.WebhookInstallOptions{Paths: paths}
	if err := install.Install(cfg); err != nil {
		return nil, fmt.Errorf("install the webhook configurations of %v: %w", paths, err)
	}
	uninstall := func() error {
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
	if err != nil {
		return nil, errors.Join(fmt.Errorf("point the CRDs' conversion at the webhooks: %w", err), uninstall())
	}
	// The CRDs again, converting through this process's /convert where the webhooks convert.
	stopServing, err := serve(cfg, subject, install, crds)
	if err != nil {
		return nil, errors.Join(err, uninstall())
	}
	// The API server converts as the CRDs said before until its informer has seen them updated: a
	// Sample written in between would be stored through their old conversion (None, say), what it
	// holds of another version dropped for good. No request shows when it has: wait past it.
	time.Sleep(RepointHoldBack)
	return func() error { return errors.Join(stopServing(), uninstall()) }, nil
}

// RepointHoldBack is how long ServeWebhooks gives the API server to convert through the webhooks
// it has pointed a running control plane's CRDs at: its CRD informer sees the update within
// milliseconds when idle; the margin is CreateHoldBack's, the API server's own for a new CRD.
const RepointHoldBack = controlplane.CreateHoldBack

// serve serves subject's Webhooks (none: nothing to serve) where install has pointed the API
// server, from a manager of their own: they answer for every test process, and while a spec has
// stopped its operator; their log lines say so, and for which spec (servedBy). Once they are
// registered, before they answer, it installs the CRDs of the directories crds, each converting
// through them where they convert its kind (installCRDs). Call it in the one process that
// outlives the others (Ginkgo's first).
func serve(cfg *rest.Config, subject operator.Subject, install *envtest.WebhookInstallOptions, crds []string) (stop func() error, err error) {
	if subject.Webhooks == nil {
		return func() error { return nil }, nil
	}
	server := &servedBy{Server: webhook.NewServer(webhook.Options{
		Host: install.LocalServingHost, Port: install.LocalServingPort, CertDir: install.LocalServingCertDir,
	})}
	stop, err = operator.StartManager(cfg, ctrl.Options{Scheme: subject.Scheme, WebhookServer: server}, func(mgr ctrl.Manager) error {
		server.namespaces = mgr.GetAPIReader()
		if err := subject.Webhooks(mgr); err != nil {
			return err
		}
		installed, err := installCRDs(cfg, crds, subject.Scheme, mgr.GetConverterRegistry(), install)
		if err != nil {
			return fmt.Errorf("install the CRDs of %v, converting through the webhooks: %w", crds, err)
		}
		controlplane.WaitPastCreateHoldBack(cfg, installed)
		return nil
	}, server.StartedChecker())
	if err != nil {
		return nil, fmt.Errorf("serve the webhooks on %s:%d: %w", install.LocalServingHost, install.LocalServingPort, err)
	}
	return stop, nil
}

// installCRDs installs (or updates) the CRDs of the directories paths, with the conversion of each
// whose kind the webhooks convert pointed at install's server, and returns them. envtest alone
// points only the kinds that scheme can convert (conversion.IsConvertible: a Hub, and ConvertTo and
// ConvertFrom on every other version); a converter registered with the webhooks (the builder's
// WithConverter: conversion functions kept out of the API types, such as controller-runtime's
// hub-and-spoke converter) is in converters, which envtest never reads: those kinds are pointed
// too. A CRD of neither converts as envtest leaves it (None, whatever its manifest says).
func installCRDs(cfg *rest.Config, paths []string, scheme *runtime.Scheme, converters conversion.Registry, install *envtest.WebhookInstallOptions) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	read := envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true}
	if err := envtest.ReadCRDFiles(&read); err != nil {
		return nil, err
	}
	var registered, others []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range read.CRDs {
		if _, ok := converters.GetConverter(schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}); ok {
			registered = append(registered, crd)
		} else {
			others = append(others, crd)
		}
	}
	pointed := *install
	pointed.IgnoreSchemeConvertible = true // each of registered, whatever scheme says
	withConverters, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: registered, WebhookOptions: pointed})
	if err != nil {
		return nil, err
	}
	byScheme, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: others, Scheme: scheme, WebhookOptions: *install})
	return append(withConverters, byScheme...), err
}

// The annotations of a spec's namespace that name the spec (the Ginkgo process that runs it, and
// its full text), for the log lines of the webhooks that serve every process (servedBy). The
// harness's Fixture sets them.
const (
	ProcessAnnotation = "harness.testing/ginkgo-process"
	SpecAnnotation    = "harness.testing/spec"
)

// servedBy is a webhook server whose admission webhooks say in each log line which process served
// them and, where the request's namespace is a spec's, the spec and its process: under `ginkgo -p`
// the lines land in the output of whatever spec the first process runs.
type servedBy struct {
	webhook.Server
	// namespaces reads the requests' namespaces; specs holds what they said, by namespace.
	namespaces client.Reader
	specs      sync.Map
}

func (s *servedBy) Register(path string, hook http.Handler) {
	if wh, ok := hook.(*admission.Webhook); ok {
		construct := wh.LogConstructor
		if construct == nil {
			construct = admission.DefaultLogConstructor
		}
		wh.LogConstructor = func(base logr.Logger, req *admission.Request) logr.Logger {
			base = base.WithValues("servedBy", "Ginkgo process 1, for every process")
			if req != nil {
				if spec := s.specOf(req.Namespace); spec != "" {
					base = base.WithValues("servedFor", spec)
				}
			}
			return construct(base, req)
		}
	}
	s.Server.Register(path, hook)
}

// specOf names the spec whose namespace is namespace, from its annotations: "Ginkgo process 3,
// spec \"Widget defaults its size\"". "" where it is no spec's, or cannot be read.
func (s *servedBy) specOf(namespace string) string {
	if spec, ok := s.specs.Load(namespace); ok {
		named, _ := spec.(string) // specs holds strings alone
		return named
	}
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	if namespace != "" && s.namespaces.Get(context.Background(), client.ObjectKey{Name: namespace}, ns) == nil {
		if spec, ok := ns.Annotations[SpecAnnotation]; ok {
			spec = fmt.Sprintf("Ginkgo process %s, spec %q", ns.Annotations[ProcessAnnotation], spec)
			s.specs.Store(namespace, spec)
			return spec
		}
	}
	return ""
}
