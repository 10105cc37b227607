// Package poll waits for a condition outside Ginkgo specs, where Eventually does it: apimachinery's
// wait, keeping the condition's last error so that a timeout says why the condition never held.
package poll

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Until calls check every interval, at once first, until it returns nil, and fails with check's
// last error once timeout has passed or ctx is done.
func Until(ctx context.Context, interval, timeout time.Duration, check func(context.Context) error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		last = check(ctx)
		if s, ok := errors.AsType[stopped](last); ok {
			return false, s.err
		}
		return last == nil, nil
	})
	if _, ok := errors.AsType[stopped](last); ok || err == nil || last == nil {
		return err
	}
	return fmt.Errorf("not within %s: %w", timeout, last)
}

// Stop makes check's err final: Until fails with it at once instead of polling on.
func Stop(err error) error { return stopped{err} }

type stopped struct{ err error }

func (s stopped) Error() string { return s.err.Error() }
