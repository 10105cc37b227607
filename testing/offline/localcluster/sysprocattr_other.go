//go:build !linux

package localcluster

import "syscall"

// sysProcAttr is the default: only Linux can have a child killed with its parent.
func sysProcAttr() *syscall.SysProcAttr { return nil }
