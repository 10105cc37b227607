package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"example.com/operator-demo/testing/poll"
)

// RestartAPIServer kills kube-apiserver (kill -9: a graceful stop waits out every open watch)
// and starts it again on the same address, with the same certificates and keys; etcd keeps the
// cluster's state meanwhile. It returns how long the API server was away.
func (lc *LocalCluster) RestartAPIServer() (time.Duration, error) {
	api := lc.Env.ControlPlane.GetAPIServer()
	pid, err := pidOf("kube-apiserver", "--cert-dir="+api.CertDir)
	if err != nil {
		return 0, err
	}
	stopped := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return 0, fmt.Errorf("kill kube-apiserver (pid %d): %w", pid, err)
	}
	// Gone once /proc no longer lists it (its parent, this process, reaps it).
	if err := poll.Until(context.Background(), 20*time.Millisecond, 10*time.Second, func(context.Context) error {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/cmdline", pid)); !os.IsNotExist(err) {
			return fmt.Errorf("kube-apiserver (pid %d) still there after kill -9", pid)
		}
		return nil
	}); err != nil {
		return 0, err
	}
	if err := api.Start(); err != nil {
		return 0, fmt.Errorf("start kube-apiserver again: %w", err)
	}
	return time.Since(stopped), nil
}

// pidOf finds the process named name whose command line holds arg.
func pidOf(name, arg string) (int, error) {
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		return 0, err
	}
	for _, path := range cmdlines {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // exited meanwhile
		}
		args := strings.Split(string(raw), "\x00")
		if filepath.Base(args[0]) == name && slices.Contains(args, arg) {
			return strconv.Atoi(filepath.Base(filepath.Dir(path)))
		}
	}
	return 0, fmt.Errorf("no %s process with %s", name, arg)
}
