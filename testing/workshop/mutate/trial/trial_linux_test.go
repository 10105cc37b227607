package trial

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"example.com/operator-demo/testing/harness/poll"
)

// TestWhatAHungTestStartedDiesWithIt: a process that a test started in a process group of its
// own, as envtest starts etcd and kube-apiserver, is killed once the run's timeout has ended the
// test: the sweep's runs leave no control plane behind.
func TestWhatAHungTestStartedDiesWithIt(t *testing.T) {
	dir := t.TempDir()
	if out, err := Build(toy, dir, nil, "./unit"); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	pidFile := filepath.Join(dir, "child.pid")
	v, err := Unit(toy, dir, "./unit", []string{"TOY_HANG=1", "TOY_CHILD=" + pidFile}, []string{"TestHangs"}, Notices, 2*time.Second)
	if err != nil || !v.TimedOut {
		t.Fatalf("TestHangs: %+v, %v; want a kill by timeout", v, err)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the toy test started no child: %v", err)
	}
	pid, err := strconv.Atoi(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	// Killed, it is gone, or a zombie until whoever adopted it reaps it.
	if err := poll.Until(context.Background(), 10*time.Millisecond, 5*time.Second, func(context.Context) error {
		stat, err := procfs.NewProc(pid)
		if err != nil {
			return nil
		}
		if s, err := stat.Stat(); err == nil && s.State != "Z" {
			return fmt.Errorf("the child %d of the test the timeout ended runs on (state %s)", pid, s.State)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
}
