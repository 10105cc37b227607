package cachelag

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

const delay = 300 * time.Millisecond

// server is an API server whose every response body is a pipe the test writes into.
type server struct{ bodies chan *io.PipeWriter }

func (s server) RoundTrip(req *http.Request) (*http.Response, error) {
	r, w := io.Pipe()
	s.bodies <- w
	return &http.Response{StatusCode: http.StatusOK, Body: r, Request: req}, nil
}

// get sends GET path through a client configured by Of(delay, resources...), and returns the
// response's body and the pipe its server writes into.
func get(t *testing.T, delay time.Duration, path string, resources ...string) (io.ReadCloser, *io.PipeWriter) {
	t.Helper()
	s := server{bodies: make(chan *io.PipeWriter, 1)}
	client, err := rest.HTTPClientFor(Of(delay, resources...)(&rest.Config{Host: "http://apiserver", Transport: s}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get("http://apiserver" + path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp.Body, <-s.bodies
}

// TestEveryWatchEventArrivesLateByTheSameDelay: each event of a watch reaches the reader delay
// after the server sent it, however many come together (the lag does not add up), then the end of
// the stream; a request that is not a watch is not held back.
func TestEveryWatchEventArrivesLateByTheSameDelay(t *testing.T) {
	body, server := get(t, delay, "/api/v1/configmaps?watch=true")
	events := []string{"one", "two", "three", "four", "five"}
	sent := time.Now()
	go func() {
		for _, e := range events {
			_, _ = server.Write([]byte(e))
		}
		_ = server.Close()
	}()
	for _, want := range events {
		buf := make([]byte, 64)
		n, err := body.Read(buf)
		if err != nil || string(buf[:n]) != want {
			t.Fatalf("Read = %q, %v; want %q", buf[:n], err, want)
		}
		if late := time.Since(sent); late < delay {
			t.Errorf("event %q arrived %s after it was sent, want at least %s", want, late, delay)
		}
	}
	if took := time.Since(sent); took > 3*delay {
		t.Errorf("%d events sent together took %s to arrive: the lag adds up, want about %s", len(events), took, delay)
	}
	if n, err := body.Read(make([]byte, 64)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("after the last event: Read = %d, %v; want the end of the stream", n, err)
	}

	body, server = get(t, delay, "/api/v1/configmaps")
	sent = time.Now()
	go func() { _, _ = server.Write([]byte("list")) }()
	if got, err := io.ReadAll(io.LimitReader(body, 4)); string(got) != "list" || err != nil || time.Since(sent) >= delay {
		t.Errorf("a list: %q, %v after %s; want it at once", got, err, time.Since(sent))
	}
}

// TestClosingAWatchEndsItAtOnce: a reader waiting for a held-back event returns once the watch
// is closed, and the server's side of the stream is closed too.
func TestClosingAWatchEndsItAtOnce(t *testing.T) {
	body, server := get(t, time.Minute, "/api/v1/configmaps?watch=true")
	go func() { _, _ = server.Write([]byte("held back")) }()
	read := make(chan error, 1)
	go func() {
		_, err := body.Read(make([]byte, 64))
		read <- err
	}()
	if err := body.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-read:
		if err == nil {
			t.Error("Read of a closed watch: no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still waits on a closed watch")
	}
	if _, err := server.Write([]byte("more")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("the server's side after Close: Write = %v, want io.ErrClosedPipe", err)
	}
}

// TestOnlyTheNamedResourcesLag: told its resources, a client holds back the watches of those alone:
// a watch of another resource streams at once, one of a named resource late, in a namespace or
// across all.
func TestOnlyTheNamedResourcesLag(t *testing.T) {
	for _, tc := range []struct {
		path string
		late bool
	}{
		{"/apis/demo.example.com/v1beta1/namespaces/team-a/samples?watch=true", false},
		{"/api/v1/namespaces/team-a/configmaps?watch=true", true},
		{"/api/v1/configmaps?watch=true", true},
	} {
		body, server := get(t, delay, tc.path, "configmaps")
		sent := time.Now()
		go func() { _, _ = server.Write([]byte("event")) }()
		got, err := io.ReadAll(io.LimitReader(body, 5))
		if string(got) != "event" || err != nil {
			t.Fatalf("%s: %q, %v", tc.path, got, err)
		}
		if late := time.Since(sent) >= delay; late != tc.late {
			t.Errorf("%s: its event arrived after %s; want it late: %v", tc.path, time.Since(sent), tc.late)
		}
	}
}
