package localcluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLastLinesAreEachLogsEnd: a failed spec shows the end of the API server's log, of
// kube-controller-manager's and of the operator's, each after its name; a log that is not there
// says so.
func TestLastLinesAreEachLogsEnd(t *testing.T) {
	dir := t.TempDir()
	lc := &LocalCluster{Dir: dir, kcm: &process{log: filepath.Join(dir, "kube-controller-manager.log")}}
	for _, name := range []string{"kube-apiserver.log", "kube-controller-manager.log"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name+" 1\n"+name+" 2\n"+name+" 3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := lc.lastLines(2, filepath.Join(dir, "operator.log"))
	for _, want := range []string{
		"kube-apiserver.log <==\nkube-apiserver.log 2\nkube-apiserver.log 3\n",
		"kube-controller-manager.log <==\nkube-controller-manager.log 2\nkube-controller-manager.log 3\n",
		"operator.log",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lastLines = %q, want it to hold %q", got, want)
		}
	}
	if strings.Contains(got, " 1\n") {
		t.Errorf("lastLines = %q, want the last 2 lines of each", got)
	}
}
