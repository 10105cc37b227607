// Package cachelag makes an operator's cache lag behind the API server, as a busy API server or a
// slow network does: every watch event reaches its informers late, while its reads and writes go
// through at once, so that its cache lags behind its own writes. A scenario that proves the
// operator reads its own writes runs it so (harness.WithClientConfig(cachelag.Of(d))).
package cachelag

import (
	"io"
	"net/http"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Of changes a client configuration so that every watch stream through it is held back by delay:
// each event reaches the cache delay after the API server sent it.
func Of(delay time.Duration) func(*rest.Config) *rest.Config {
	return func(cfg *rest.Config) *rest.Config {
		cfg = rest.CopyConfig(cfg)
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return laggingWatches{next: rt, delay: delay} })
		return cfg
	}
}

type laggingWatches struct {
	next  http.RoundTripper
	delay time.Duration
}

func (l laggingWatches) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	if err != nil || req.URL.Query().Get("watch") != "true" {
		return resp, err
	}
	resp.Body = newLaggingBody(resp.Body, l.delay)
	return resp, nil
}

// laggingBody hands on what body delivers, each chunk delay after it arrived: a fixed lag, not
// one that grows with the number of events.
type laggingBody struct {
	body      io.ReadCloser
	chunks    chan chunk
	closed    chan struct{}
	closeOnce sync.Once
	rest      []byte
	err       error
}

type chunk struct {
	data []byte
	due  time.Time
	err  error
}

func newLaggingBody(body io.ReadCloser, delay time.Duration) *laggingBody {
	b := &laggingBody{body: body, chunks: make(chan chunk, 1024), closed: make(chan struct{})}
	go func() {
		defer close(b.chunks)
		for {
			buf := make([]byte, 32*1024)
			n, err := body.Read(buf)
			select {
			case b.chunks <- chunk{data: buf[:n], due: time.Now().Add(delay), err: err}:
			case <-b.closed:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return b
}

func (b *laggingBody) Read(p []byte) (int, error) {
	if len(b.rest) == 0 && b.err == nil {
		c, ok := <-b.chunks
		if !ok {
			return 0, io.EOF
		}
		wait := time.NewTimer(time.Until(c.due))
		select {
		case <-wait.C:
		case <-b.closed:
			wait.Stop()
			return 0, io.ErrClosedPipe
		}
		b.rest, b.err = c.data, c.err
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	if len(b.rest) == 0 && b.err != nil {
		return n, b.err
	}
	return n, nil
}

func (b *laggingBody) Close() error {
	b.closeOnce.Do(func() { close(b.closed) })
	return b.body.Close()
}
