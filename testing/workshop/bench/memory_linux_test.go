package main

import (
	"os"
	"testing"

	"github.com/prometheus/procfs"
)

// TestProcStatus: procfs reads a process's RSS, anonymous and file-backed, where the table takes it.
func TestProcStatus(t *testing.T) {
	p, err := procfs.NewProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	status, err := p.NewStatus()
	if err != nil || status.RssAnon == 0 || status.RssFile == 0 {
		t.Errorf("this process's status: RssAnon %d, RssFile %d, %v", status.RssAnon, status.RssFile, err)
	}
}
