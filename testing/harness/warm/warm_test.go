package warm

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TestAWarmControlPlaneThatDoesNotAnswerIsPassedOver: a warm control plane that is gone, or
// hangs, reads as an error within seconds (Start then starts a control plane of its own), never
// waited on; none at all reads as os.ErrNotExist.
func TestAWarmControlPlaneThatDoesNotAnswerIsPassedOver(t *testing.T) {
	for name, host := range map[string]string{"hung": hungServer(t), "gone": goneServer(t)} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kubeconfig")
			attachment, err := clientcmd.Write(clientcmdapi.Config{
				Clusters:       map[string]*clientcmdapi.Cluster{"warm": {Server: "https://" + host, InsecureSkipTLSVerify: true}},
				Contexts:       map[string]*clientcmdapi.Context{"warm": {Cluster: "warm"}},
				CurrentContext: "warm",
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, attachment, 0o600); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, _, err := Read(path)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || errors.Is(err, os.ErrNotExist) {
					t.Errorf("Read: error %v; want one that says it does not answer", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still waiting on a control plane that does not answer after 10 s")
			}
		})
	}

	for _, none := range []string{filepath.Join(t.TempDir(), "none.json"), ""} { // "": none found (Start)
		if _, _, err := Read(none); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("without a warm control plane (%q): %v, want os.ErrNotExist", none, err)
		}
	}
}

// hungServer is the address of a listener that accepts connections and never answers.
func hungServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			if _, err := l.Accept(); err != nil {
				return
			}
		}
	}()
	return l.Addr().String()
}

// goneServer is an address that nothing listens on any more.
func goneServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}
