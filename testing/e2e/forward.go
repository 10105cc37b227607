package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
	streamhttp "k8s.io/streaming/pkg/httpstream"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Forward is `kubectl port-forward service/NAME` that outlives the Pod behind the Service: it
// listens on a loopback port and forwards each connection, through the API server's portforward
// subresource (the kubelet, then the container runtime, enter the Pod), to a Ready Pod behind the
// Service, chosen anew for each connection. A Pod deleted or rolled over ends the connections to
// it, not the forward.
type Forward struct {
	// Addr is where it listens: 127.0.0.1:<port>.
	Addr      string
	listener  net.Listener
	cs        *kubernetes.Clientset
	cfg       *rest.Config
	c         client.Client
	namespace string
	service   corev1.ServicePort
	name      string
	requests  atomic.Int64
	// failed is why the last connection could not be forwarded.
	failed atomic.Pointer[error]
}

// StartForward forwards a loopback port to port port of the Service namespace/name.
func StartForward(ctx context.Context, cfg *rest.Config, c client.Client, namespace, name string, port int32) (*Forward, error) {
	svc := &corev1.Service{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, svc); err != nil {
		return nil, fmt.Errorf("the Service to forward: %w", err)
	}
	f := &Forward{cfg: cfg, c: c, namespace: namespace, name: name}
	for _, p := range svc.Spec.Ports {
		if p.Port == port {
			f.service = p
		}
	}
	if f.service.Port == 0 {
		return nil, fmt.Errorf("the Service %s/%s has no port %d", namespace, name, port)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	f.cs = cs
	if f.listener, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	f.Addr = f.listener.Addr().String()
	go f.serve()
	return f, nil
}

// Stop stops listening; the connections open end with their Pods'.
func (f *Forward) Stop() error { return f.listener.Close() }

// Failed is why the last connection that could not be forwarded was not (nil if none failed):
// its client saw only the connection closed.
func (f *Forward) Failed() error {
	if err := f.failed.Load(); err != nil {
		return *err
	}
	return nil
}

func (f *Forward) serve() {
	for {
		conn, err := f.listener.Accept()
		if err != nil {
			return
		}
		go f.handle(conn)
	}
}

// handle forwards conn to a Ready Pod of the Service; on any failure it closes conn, which its
// client sees as a connection reset and may retry.
func (f *Forward) handle(conn net.Conn) {
	defer func() { _ = conn.Close() }()
	if err := f.forward(conn); err != nil {
		f.failed.Store(&err)
	}
}

func (f *Forward) forward(conn net.Conn) error {
	pod, port, err := f.endpoint(context.Background())
	if err != nil {
		return err
	}
	streams, err := f.dial(pod)
	if err != nil {
		return err
	}
	defer func() { _ = streams.Close() }()
	headers := http.Header{}
	headers.Set(corev1.StreamType, corev1.StreamTypeError)
	headers.Set(corev1.PortHeader, strconv.Itoa(int(port)))
	headers.Set(corev1.PortForwardRequestIDHeader, strconv.FormatInt(f.requests.Add(1), 10))
	errorStream, err := streams.CreateStream(headers)
	if err != nil {
		return fmt.Errorf("port-forward to Pod %s/%s: %w", f.namespace, pod, err)
	}
	_ = errorStream.Close() // nothing is written to it; the kubelet writes what went wrong
	failure := make(chan []byte, 1)
	go func() { message, _ := io.ReadAll(errorStream); failure <- message }()
	headers.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := streams.CreateStream(headers)
	if err != nil {
		return fmt.Errorf("port-forward to Pod %s/%s: %w", f.namespace, pod, err)
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, data); done <- struct{}{} }()
	go func() { _, _ = io.Copy(data, conn); _ = data.Close(); done <- struct{}{} }()
	<-done
	select {
	case message := <-failure:
		if len(message) > 0 {
			return fmt.Errorf("port-forward to Pod %s/%s, port %d: %s", f.namespace, pod, port, message)
		}
	case <-time.After(time.Second):
	}
	return nil
}

// endpoint is a Pod behind the Service, from its EndpointSlices: a Ready one if there is one, as
// the Service would choose, else one that runs, not Ready yet, as kubectl port-forward would; and
// the port the Service's port maps to there.
func (f *Forward) endpoint(ctx context.Context) (string, int32, error) {
	slices := &discoveryv1.EndpointSliceList{}
	if err := f.c.List(ctx, slices, client.InNamespace(f.namespace), client.MatchingLabels{discoveryv1.LabelServiceName: f.name}); err != nil {
		return "", 0, err
	}
	pod, port := "", int32(0)
	for _, s := range slices.Items {
		for _, p := range s.Ports {
			if p.Port == nil || p.Name == nil || *p.Name != f.service.Name {
				continue
			}
			for _, e := range s.Endpoints {
				if e.TargetRef == nil || e.TargetRef.Kind != "Pod" || (e.Conditions.Terminating != nil && *e.Conditions.Terminating) {
					continue
				}
				if e.Conditions.Ready != nil && *e.Conditions.Ready {
					return e.TargetRef.Name, *p.Port, nil
				}
				pod, port = e.TargetRef.Name, *p.Port
			}
		}
	}
	if pod == "" {
		return "", 0, fmt.Errorf("the Service %s/%s has no endpoint", f.namespace, f.name)
	}
	return pod, port, nil
}

// dial opens a port-forward connection to pod as kubectl does: WebSockets first, then SPDY.
func (f *Forward) dial(pod string) (streamhttp.Connection, error) {
	url := f.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(f.namespace).Name(pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(f.cfg)
	if err != nil {
		return nil, err
	}
	websocket, err := portforward.NewSPDYOverWebsocketDialerForStreaming(url, f.cfg)
	if err != nil {
		return nil, err
	}
	dialer := portforward.NewFallbackDialerForStreaming(websocket,
		spdy.NewDialerForStreaming(upgrader, &http.Client{Transport: transport}, http.MethodPost, url),
		func(err error) bool { return streamhttp.IsUpgradeFailure(err) || streamhttp.IsHTTPSProxyError(err) })
	conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	if err != nil {
		return nil, fmt.Errorf("port-forward to Pod %s/%s: %w", f.namespace, pod, err)
	}
	return conn, nil
}
