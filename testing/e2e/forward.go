package e2e

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// MetricsStatus is the HTTP status of the operator's metrics endpoint to token as bearer (none
// when empty), through a forward of its metrics port (onMetrics).
func (d *Deployment) MetricsStatus(ctx context.Context, token string) (int, error) {
	return onMetrics(ctx, d, func(ctx context.Context, url string) (int, error) {
		resp, err := get(ctx, url, token)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	})
}

// onMetrics is what get reads at the URL of the operator's metrics on this machine, forwarded to
// d's Pod that serves them now (forwardMetrics) for that call alone: a scrape reaches the Pod of
// that moment, whatever was rolled out, scaled or killed since the last. When the forward or get
// fails (that Pod went away meanwhile), it tries once more, with the Pod chosen again; both within
// 15 s: twice the scrape's own timeout, and the forwards' setup.
func onMetrics[T any](ctx context.Context, d *Deployment, get func(ctx context.Context, url string) (T, error)) (got T, err error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	err = retry.OnError(wait.Backoff{Steps: 2}, func(error) bool { return true }, func() error {
		url, stop, err := d.forwardMetrics(ctx)
		if err != nil {
			return err
		}
		defer stop()
		got, err = get(ctx, url)
		return err
	})
	return got, err
}

// forwardMetrics forwards a free loopback port to the metrics port of the Pod that serves now
// (serving), as `kubectl port-forward` does: client-go's port-forward, through the API server's
// portforward subresource over WebSockets (which kind's API server serves: kubectl falls back to
// SPDY for an older one). It returns the URL of the metrics there, and stop, which ends the forward.
func (d *Deployment) forwardMetrics(ctx context.Context) (url string, stop func(), err error) {
	pod, err := d.serving(ctx)
	if err != nil {
		return "", nil, err
	}
	podURL := d.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(d.Namespace).Name(pod).SubResource("portforward").URL()
	dialer, err := portforward.NewSPDYOverWebsocketDialerForStreaming(podURL, d.Config)
	if err != nil {
		return "", nil, err
	}
	// client-go's port-forward logs what fails in a connection: with controller-runtime's log.
	ctx, stop = context.WithCancel(log.IntoContext(ctx, log.Log.WithName("port-forward")))
	ready, ended := make(chan struct{}), make(chan error, 1)
	pf, err := portforward.NewOnAddressesForStreamingWithContext(ctx, dialer, []string{"127.0.0.1"},
		[]string{fmt.Sprintf("0:%d", d.MetricsPort)}, ready, io.Discard, io.Discard)
	if err != nil {
		stop()
		return "", nil, err
	}
	go func() { ended <- pf.ForwardPorts() }()
	select {
	case <-ready:
		ports, _ := pf.GetPorts() // fails only before ready
		return fmt.Sprintf("https://127.0.0.1:%d/metrics", ports[0].Local), stop, nil
	case <-ctx.Done():
		err = ctx.Err()
	case err = <-ended:
	}
	stop()
	return "", nil, fmt.Errorf("port-forward to Pod %s/%s: %w", d.Namespace, pod, err)
}
