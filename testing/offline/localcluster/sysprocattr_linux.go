package localcluster

import "syscall"

// sysProcAttr kills the child when the test process dies, however it dies (Pdeathsig), and puts
// it in a process group of its own, away from the terminal's signals.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
