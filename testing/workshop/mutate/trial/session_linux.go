package trial

import (
	"os/exec"
	"syscall"

	"github.com/prometheus/procfs"
)

// ownSession makes cmd the leader of a session of its own, and returns what kills, once cmd has
// ended, whatever it left running there: a test that its timeout or a panic ends never stops the
// etcd and kube-apiserver envtest started for it, in process groups of their own, not sessions.
func ownSession(cmd *exec.Cmd) (reap func()) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return func() {
		procs, _ := procfs.AllProcs() // none readable: nothing to kill
		for _, p := range procs {
			if stat, err := p.Stat(); err == nil && cmd.Process != nil && stat.Session == cmd.Process.Pid {
				_ = syscall.Kill(p.PID, syscall.SIGKILL)
			}
		}
	}
}
