// Package cachelag makes an operator's cache lag behind the API server, as a busy API server or a
// slow network does: every watch event reaches its informers late, while its reads and writes go
// through at once, so that its cache lags behind its own writes. A scenario that proves the
// operator reads its own writes runs it so (harness.WithClientConfig(cachelag.Of(d))); one that
// proves it never writes on what a stale cache shows of one kind, while it hears of another at
// once, names that kind's resource (cachelag.Of(d, "configmaps")).
package cachelag

import (
	"io"
	"net/http"
	"path"
	"slices"
	"time"

	"k8s.io/client-go/rest"
)

// Of changes a client configuration so that every watch stream through it of resources (each a
// resource's plural name, "configmaps"; every resource when none is named) is held back by delay:
// each event reaches the cache delay after the API server sent it.
func Of(delay time.Duration, resources ...string) func(*rest.Config) *rest.Config {
	return func(cfg *rest.Config) *rest.Config {
		cfg = rest.CopyConfig(cfg)
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return laggingWatches{next: rt, delay: delay, resources: resources}
		})
		return cfg
	}
}

type laggingWatches struct {
	next      http.RoundTripper
	delay     time.Duration
	resources []string
}

func (l laggingWatches) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	if err != nil || req.URL.Query().Get("watch") != "true" {
		return resp, err
	}
	if len(l.resources) > 0 && !slices.Contains(l.resources, path.Base(req.URL.Path)) {
		return resp, nil
	}
	resp.Body = lagging(resp.Body, l.delay)
	return resp, nil
}

// lagging hands on what body delivers, each chunk delay after it arrived: a fixed lag, not one
// that grows with the number of events. One goroutine reads body and stamps each chunk with when
// it is due; another writes it, once due, into the pipe that the caller reads.
func lagging(body io.ReadCloser, delay time.Duration) io.ReadCloser {
	type chunk struct {
		data []byte
		due  time.Time
		err  error
	}
	chunks := make(chan chunk, 1024)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32*1024)
			n, err := body.Read(buf)
			chunks <- chunk{data: buf[:n], due: time.Now().Add(delay), err: err}
			if err != nil {
				return
			}
		}
	}()
	r, w := io.Pipe()
	go func() {
		// Once the caller has closed the pipe, each Write fails at once: the chunks left drain.
		for c := range chunks {
			<-time.After(time.Until(c.due))
			if len(c.data) > 0 {
				_, _ = w.Write(c.data)
			}
			if c.err != nil {
				_ = w.CloseWithError(c.err)
			}
		}
	}()
	return pipeOf{r, body}
}

// pipeOf is the pipe a lagging body is read from; closing it closes the body too.
type pipeOf struct {
	*io.PipeReader
	body io.Closer
}

func (p pipeOf) Close() error {
	_ = p.PipeReader.Close()
	return p.body.Close()
}
