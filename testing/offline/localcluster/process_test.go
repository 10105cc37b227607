package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"example.com/operator-demo/testing/harness/poll"
)

func TestStopIsCleanOnSIGTERMAndKillsAfterTheGracePeriod(t *testing.T) {
	dir := t.TempDir()
	p, err := startProcess("sleeper", filepath.Join(dir, "sleeper.log"), 5*time.Second, "sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("a process that exits on SIGTERM: Stop = %v, want nil", err)
	}

	log := filepath.Join(dir, "stubborn.log")
	stubborn, err := startProcess("stubborn", log, 200*time.Millisecond, "bash", "-c", `trap "" TERM; echo ready; exec sleep 30`)
	if err != nil {
		t.Fatal(err)
	}
	// SIGTERM only once the shell ignores it (it says ready after its trap).
	if err := poll.Until(context.Background(), 10*time.Millisecond, 5*time.Second, func(context.Context) error {
		out, err := os.ReadFile(log)
		if err == nil && !strings.Contains(string(out), "ready") {
			err = fmt.Errorf("not ready yet: %q", out)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	err = stubborn.Stop()
	if err == nil || !strings.Contains(err.Error(), "did not stop within 200ms of SIGTERM; killed") {
		t.Errorf("a process that ignores SIGTERM: Stop = %v, want it killed after the grace period", err)
	}
	if took := time.Since(started); took > 5*time.Second {
		t.Errorf("Stop took %s for a 200ms grace period", took)
	}
}

func TestKillIsImmediate(t *testing.T) {
	p, err := startProcess("sleeper", filepath.Join(t.TempDir(), "sleeper.log"), time.Minute, "sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	p.Kill()
	select {
	case <-p.done:
	default:
		t.Error("Kill returned before the process had exited")
	}
}
