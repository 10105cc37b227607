// Command envtestup keeps an envtest control plane (etcd and kube-apiserver, with the CRDs) running
// between test runs, for the test-first loop: the scenarios attach to it when it is up
// (testing/cluster) instead of starting their own. `make envtest-up` and `make envtest-down` run it.
//
//	envtestup serve    start the control plane, write its attachment, and wait for SIGTERM
//	envtestup wait     wait until the control plane that serve starts answers
//	envtestup status   exit 0 and print its address when one is up and answers
//	envtestup down     stop it (SIGTERM, then SIGKILL), and remove what it wrote
//
// Everything lives in bin/envtest-up/: the attachment, serve's pid, and the components' logs.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"example.com/operator-demo/testing/cluster"
	"example.com/operator-demo/testing/controlplane"
	"example.com/operator-demo/testing/poll"
	"example.com/operator-demo/testing/warm"
	"example.com/operator-demo/testing/workshop/repo"
)

// startWithin bounds how long wait waits: a start takes 3 to 4 s on 2 cores.
const startWithin = time.Minute

func main() {
	if len(os.Args) != 2 {
		fail(errors.New("usage: envtestup serve|wait|status|down"))
	}
	root, err := repo.Root()
	if err != nil {
		fail(err)
	}
	s := state{attachment: filepath.Join(root, warm.File)}
	s.dir = filepath.Dir(s.attachment)
	s.pid = filepath.Join(s.dir, "pid")
	switch os.Args[1] {
	case "serve":
		err = s.serve()
	case "wait":
		err = s.wait()
	case "status":
		err = s.status()
	case "down":
		err = s.down()
	default:
		err = fmt.Errorf("unknown command %q: want serve, wait, status or down", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "envtest-up:", err)
	os.Exit(1)
}

// state is where the files of a warm control plane are.
type state struct{ dir, attachment, pid string }

func (s state) serve() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	cp, err := controlplane.Start(nil)
	if err != nil {
		return err
	}
	attachment, err := cluster.Attachment(cp.Config)
	if err == nil {
		err = os.WriteFile(s.pid, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	if err == nil {
		// Renamed into place: whoever finds the file finds it whole.
		tmp := s.attachment + ".tmp"
		if err = os.WriteFile(tmp, attachment, 0o600); err == nil {
			err = os.Rename(tmp, s.attachment)
		}
	}
	if err == nil {
		fmt.Printf("envtest-up: serving %s (pid %d)\n", cp.Config.Host, os.Getpid())
		<-ctx.Done()
	}
	// The pid file goes last: down waits for it, so down returns once all has stopped.
	return errors.Join(err, os.Remove(s.attachment), cp.Stop(), os.Remove(s.pid))
}

func (s state) wait() error {
	return poll.Until(context.Background(), 200*time.Millisecond, startWithin, func(context.Context) error { return s.status() })
}

// status says where the control plane is, if one is up and answers.
func (s state) status() error {
	cfg, _, err := warm.Read(s.attachment)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("no control plane is up (%w)", err)
	case err == nil:
		fmt.Printf("envtest-up: a control plane is up at %s; the scenarios attach to it (make envtest-down stops it)\n", cfg.Host)
	}
	return err
}

// down stops serve: SIGTERM, then SIGKILL if it has not removed its pid file within 30 s.
func (s state) down() error {
	raw, err := os.ReadFile(s.pid)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Println("envtest-up: no control plane is up")
		return os.RemoveAll(s.dir)
	}
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(string(raw))
	if err != nil {
		return fmt.Errorf("%s: %w", s.pid, err)
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Signal(syscall.SIGTERM)
	}
	if err == nil {
		err = poll.Until(context.Background(), 100*time.Millisecond, 30*time.Second, func(context.Context) error {
			if _, err := os.Stat(s.pid); err == nil {
				return fmt.Errorf("pid %d still serving", pid)
			}
			return nil
		})
		if err != nil {
			_ = p.Kill()
		}
	}
	// A process already gone left its files: they go too, whatever the signal said.
	fmt.Printf("envtest-up: stopped (pid %d)\n", pid)
	return os.RemoveAll(s.dir)
}
