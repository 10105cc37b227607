package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/operator-demo/controllers"
)

// NewClient is a client for cfg that knows the built-in kinds and the Sample API, and reads
// straight from the API server.
func NewClient(cfg *rest.Config) (client.WithWatch, error) {
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	return c, nil
}

// Parallel runs do(0) … do(n-1) on workers goroutines and joins their errors.
func Parallel(n, workers int, do func(i int) error) error {
	next := make(chan int)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				errs[i] = do(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// WaitFor calls check every interval until it returns nil, and fails with check's last error
// once timeout has passed (outside Ginkgo specs, where Eventually does this).
func WaitFor(ctx context.Context, interval, timeout time.Duration, check func(context.Context) error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		last = check(ctx)
		return last == nil, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("not within %s: %w", timeout, last)
	}
	return err
}
