package harness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// process is a child process whose output goes to a log file. It dies with the test process
// (Pdeathsig), so nothing is left running even when the test binary itself is killed.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	// done is closed when the process has exited; err is then its exit error.
	done chan struct{}
	err  error
}

func startProcess(name, logPath, binary string, args ...string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// stop sends SIGTERM and waits for a graceful exit, then SIGKILL after grace.
func (p *process) stop(grace time.Duration) error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal %s: %w", p.name, err)
	}
	select {
	case <-p.done:
		return exitError(p.name, p.err)
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not stop within %s of SIGTERM; killed", p.name, grace)
	}
}

// kill is kill -9: no chance to clean up.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// exitError treats an exit on SIGTERM as the clean stop it is.
func exitError(name string, err error) error {
	var exit *exec.ExitError
	if err == nil {
		return nil
	}
	if errors.As(err, &exit) {
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signal() == syscall.SIGTERM {
			return nil
		}
	}
	return fmt.Errorf("%s: %w", name, err)
}
