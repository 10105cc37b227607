package localcluster

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"example.com/operator-demo/testing/e2e"
	"example.com/operator-demo/testing/harness/poll"
)

// startOperator starts the operator binary with args, as a process of the test's that logs to log,
// and waits until it answers ready, its /readyz.
func startOperator(binary, log, ready string, args ...string) (*process, error) {
	proc, err := startProcess("operator", log, 30*time.Second, binary, args...)
	if err != nil {
		return nil, err
	}
	err = poll.Until(context.Background(), 100*time.Millisecond, 30*time.Second, func(ctx context.Context) error {
		select {
		case <-proc.done:
			return poll.Stop(fmt.Errorf("the operator exited before it was ready, see %s: %w", log, proc.err))
		default:
		}
		code, err := e2e.StatusCode(ctx, ready, "")
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("GET %s: %s", ready, http.StatusText(code))
		}
		return err
	})
	if err != nil {
		proc.Kill()
		return nil, fmt.Errorf("the operator is not ready, see %s: %w", log, err)
	}
	return proc, nil
}
