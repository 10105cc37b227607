package localcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// process is a child process of the cluster's (kube-controller-manager, the operator binary): an
// exec.Cmd whose output is appended to a log file, stopped with SIGTERM and, after a grace period,
// SIGKILL (the Cmd's Cancel and WaitDelay), and, on Linux, killed with the test process (a
// parent-death signal), so that nothing outlives the test even when the test itself is killed.
// Other systems have no such signal: there a child outlives a test killed -9.
type process struct {
	// name names it in errors; log is the file its output goes to.
	name, log string
	cmd       *exec.Cmd
	stop      context.CancelFunc
	// done is closed when the process has exited; err is then what Wait returned.
	done chan struct{}
	err  error
}

// startProcess starts binary with args, its output appended to the file log. Stop gives it grace
// to exit after SIGTERM.
func startProcess(name, log string, grace time.Duration, binary string, args ...string) (*process, error) {
	logFile, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = grace
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		stop()
		return nil, errors.Join(fmt.Errorf("start %s: %w", name, err), logFile.Close())
	}
	p := &process{name: name, log: log, cmd: cmd, stop: stop, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Stop sends SIGTERM and waits for the process to exit; it is killed if it has not within the
// grace period. An exit on the SIGTERM is a clean stop.
func (p *process) Stop() error {
	p.stop()
	<-p.done
	var exit *exec.ExitError
	switch {
	case p.err == nil, errors.Is(p.err, context.Canceled):
		return nil
	case errors.As(p.err, &exit):
		status, ok := exit.Sys().(syscall.WaitStatus)
		switch {
		case ok && status.Signal() == syscall.SIGTERM:
			return nil
		case ok && status.Signal() == syscall.SIGKILL:
			return fmt.Errorf("%s did not stop within %s of SIGTERM; killed (log: %s)", p.name, p.cmd.WaitDelay, p.log)
		}
	}
	return fmt.Errorf("%s: %w (log: %s)", p.name, p.err, p.log)
}

// Kill is kill -9: the process gets no chance to clean up.
func (p *process) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
	p.stop()
}

// freePort is a TCP port on 127.0.0.1 that nothing listens on, for now: for a child process to
// serve on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	addr, err := netip.ParseAddrPort(l.Addr().String())
	return int(addr.Port()), err
}
