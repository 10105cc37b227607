// Command envtestup (make envtest-up, envtest-down) keeps an envtest control plane with the CRDs up
// between test runs for the scenarios to attach to (testing/harness/warm); its files are in bin/envtest-up/.
//
//	envtestup serve    start the control plane, write its attachment, and wait for SIGTERM
//	envtestup wait     wait until the control plane that serve starts answers
//	envtestup status   exit 0 and print its address when one is up and answers
//	envtestup down     stop it (SIGTERM, then SIGKILL), and remove what it wrote
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

	"example.com/operator-demo/testing/harness/controlplane"
	"example.com/operator-demo/testing/harness/poll"
	"example.com/operator-demo/testing/harness/warm"
	"example.com/operator-demo/testing/workshop/repo"
)

var dir, attachment, pidFile string // where serve writes

func main() {
	root, err := repo.Root()
	attachment = filepath.Join(root, warm.File)
	dir = filepath.Dir(attachment)
	pidFile = filepath.Join(dir, "pid")
	command := map[string]func() error{"serve": serve, "status": status, "down": down, "wait": func() error {
		// A start takes 3 to 4 s on 2 cores.
		return poll.Until(context.Background(), 200*time.Millisecond, time.Minute, func(context.Context) error { return status() })
	}}[os.Args[len(os.Args)-1]]
	if len(os.Args) != 2 || command == nil {
		err = errors.New("usage: envtestup serve|wait|status|down")
	} else if err == nil {
		err = command()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest-up:", err)
		os.Exit(1)
	}
}

func serve() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cp, err := controlplane.Start(nil)
	if err != nil {
		return err
	}
	err = os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o600)
	if err == nil { // renamed into place: whoever finds the file finds it whole
		if err = os.WriteFile(attachment+".tmp", cp.KubeConfig, 0o600); err == nil {
			err = os.Rename(attachment+".tmp", attachment)
		}
	}
	if err == nil {
		fmt.Printf("envtest-up: serving %s (pid %d)\n", cp.Config.Host, os.Getpid())
		<-ctx.Done()
	}
	// The pid file goes last: down waits for it, so down returns once all has stopped.
	return errors.Join(err, os.Remove(attachment), cp.Stop(), os.Remove(pidFile))
}

// status says where the control plane is, if one is up and answers.
func status() error {
	cfg, _, err := warm.Read(attachment)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no control plane is up (%w)", err)
	} else if err == nil {
		fmt.Printf("envtest-up: a control plane is up at %s; the scenarios attach to it (make envtest-down stops it)\n", cfg.Host)
	}
	return err
}

// down stops serve (SIGTERM, SIGKILL after 30 s) and removes its files, which a killed serve left.
func down() error {
	raw, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Println("envtest-up: no control plane is up")
		return os.RemoveAll(dir)
	}
	pid, atoiErr := strconv.Atoi(string(raw))
	if err := errors.Join(err, atoiErr); err != nil {
		return fmt.Errorf("%s: %w", pidFile, err)
	}
	p, err := os.FindProcess(pid)
	if err == nil && p.Signal(syscall.SIGTERM) == nil && poll.Until(context.Background(), 100*time.Millisecond, 30*time.Second, func(context.Context) error {
		if _, err := os.Stat(pidFile); err == nil {
			return fmt.Errorf("pid %d still serving", pid)
		}
		return nil
	}) != nil {
		_ = p.Kill()
	}
	fmt.Printf("envtest-up: stopped (pid %d)\n", pid)
	return os.RemoveAll(dir)
}
