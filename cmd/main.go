// Command manager runs the Sample operator: one controller, with health probes, an authenticated
// metrics endpoint, and leader election when asked (--leader-elect, as config/manager does); and
// the webhook that converts Samples between their versions, served when given its certificate
// (--webhook-cert-dir), which it issues itself with --webhook-cert-secret, as config/default
// deploys it.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"example.com/operator-demo/controllers"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		metricsAddr      string
		metricsSecure    bool
		probeAddr        string
		leaderElect      bool
		leaderElectionNS string
		enableHTTP2      bool
		concurrency      int
		conflictRecheck  time.Duration
		qps              float64
		burst            int
		shutdownTimeout  time.Duration
		webhookCertDir   string
		webhookPort      int
		webhookSecret    string
		webhookService   string
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8443", "Address the metrics endpoint binds to; \"0\" turns it off.")
	flag.BoolVar(&metricsSecure, "metrics-secure", true, "Serve metrics over HTTPS, to authenticated and authorized clients only.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address the /healthz and /readyz probes bind to.")
	flag.BoolVar(&leaderElect, "leader-elect", false, "Elect a leader, so that of several replicas only one reconciles.")
	flag.StringVar(&leaderElectionNS, "leader-election-namespace", "", "Namespace of the leader election Lease (default: the one the manager runs in).")
	flag.BoolVar(&enableHTTP2, "enable-http2", false, "Serve metrics and the webhook over HTTP/2 too (off: HTTP/2 Rapid Reset, CVE-2023-44487).")
	flag.IntVar(&concurrency, "max-concurrent-reconciles", controllers.DefaultMaxConcurrentReconciles, "How many Samples are reconciled at once (the default is measured in BENCHMARKS.md).")
	flag.DurationVar(&conflictRecheck, "conflict-recheck", controllers.DefaultConflictRecheck, "How often a Sample whose ConfigMap name is taken by a ConfigMap it does not control looks again.")
	flag.Float64Var(&qps, "kube-api-qps", 50, "Steady queries per second to the API server.")
	flag.IntVar(&burst, "kube-api-burst", 100, "Burst of queries to the API server above kube-api-qps.")
	flag.DurationVar(&shutdownTimeout, "graceful-shutdown-timeout", 30*time.Second, "How long in-flight reconciles may take to finish on SIGTERM.")
	flag.StringVar(&webhookCertDir, "webhook-cert-dir", "", "Directory of the conversion webhook's serving certificate (tls.crt, tls.key), whose CA the CRD's caBundle holds; empty: no webhook server, and the API server cannot convert Samples between v1alpha1 and v1beta1.")
	flag.IntVar(&webhookPort, "webhook-port", 9443, "Port the conversion webhook is served on, with --webhook-cert-dir.")
	flag.StringVar(&webhookSecret, "webhook-cert-secret", "", "The Secret, <namespace>/<name>, to issue the webhook's serving certificate into and keep it there (open-policy-agent/cert-controller's rotator: a CA of its own, the certificate for --webhook-service, renewed before they expire), mounted at --webhook-cert-dir; the CA goes into the Sample CRD's caBundle, and the webhook, and readiness, wait for both. Empty: the certificate comes from elsewhere (cert-manager, say).")
	flag.StringVar(&webhookService, "webhook-service", "", "The DNS name the API server calls the webhook by, <service>.<namespace>.svc, that --webhook-cert-secret's certificate is issued for.")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	var tlsOpts []func(*tls.Config)
	if !enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	metricsOpts := metricsserver.Options{BindAddress: metricsAddr, SecureServing: metricsSecure, TLSOpts: tlsOpts}
	webhookServer, certificate, err := newWebhookServer(webhook.Options{Port: webhookPort, CertDir: webhookCertDir, TLSOpts: tlsOpts}, webhookSecret, webhookService)
	if err != nil {
		return err
	}
	if metricsSecure {
		metricsOpts.FilterProvider = filters.WithAuthenticationAndAuthorization
	}

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("find the cluster (--kubeconfig, in-cluster config or ~/.kube/config): %w", err)
	}
	cfg.QPS, cfg.Burst = float32(qps), burst
	mgr, err := ctrl.NewManager(cfg, controllers.ManagerOptions(withRotator(certificate, ctrl.Options{
		Scheme:                        controllers.NewScheme(),
		Metrics:                       metricsOpts,
		HealthProbeBindAddress:        probeAddr,
		LeaderElection:                leaderElect,
		LeaderElectionID:              "operator-demo.demo.example.com",
		LeaderElectionNamespace:       leaderElectionNS,
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       &shutdownTimeout,
		WebhookServer:                 webhookServer,
	})))
	if err != nil {
		return fmt.Errorf("create manager: %w", err)
	}
	reconciler := controllers.NewSampleReconciler(mgr)
	reconciler.MaxConcurrentReconciles = concurrency
	reconciler.ConflictRecheck = conflictRecheck
	if err := reconciler.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up the Sample controller: %w", err)
	}
	if err := controllers.SetupWebhooks(mgr); err != nil {
		return err
	}
	if certificate != nil {
		if err := rotator.AddRotator(mgr, certificate); err != nil {
			return fmt.Errorf("set up the rotator of the webhook's certificate in Secret %s: %w", certificate.SecretKey, err)
		}
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("add health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("add readiness check: %w", err)
	}
	// Ready once the webhook answers, with its certificate: the Service sends the API server's
	// conversions to Ready Pods alone.
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("add the webhook's readiness check: %w", err)
	}
	ctrl.Log.WithName("setup").Info("starting manager", "leaderElect", leaderElect, "maxConcurrentReconciles", concurrency, "metrics", metricsAddr, "webhookCertDir", webhookCertDir, "webhookCertSecret", webhookSecret)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		return fmt.Errorf("run manager: %w", err)
	}
	return nil
}
