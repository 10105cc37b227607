package cluster

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"example.com/operator-demo/testing/operator"
)

// TestAWarmControlPlaneThatDoesNotAnswerIsPassedOver: a warm control plane that is gone, or
// hangs, is passed over (the run then starts its own), never waited on.
func TestAWarmControlPlaneThatDoesNotAnswerIsPassedOver(t *testing.T) {
	for name, host := range map[string]string{"hung": hungServer(t), "gone": goneServer(t)} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "attachment.json")
			attachment, err := Attachment(&rest.Config{Host: "https://" + host, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, attachment, 0o600); err != nil {
				t.Fatal(err)
			}
			type attached struct {
				found bool
				err   error
			}
			done := make(chan attached, 1)
			go func() {
				e, a, err := attachWarm(path, t.TempDir(), operator.Subject{})
				done <- attached{e != nil || a != nil, err}
			}()
			select {
			case got := <-done:
				if got.found || got.err != nil {
					t.Errorf("attachWarm: attached %v, error %v; want it passed over", got.found, got.err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still waiting on a control plane that does not answer after 10 s")
			}
		})
	}

	if e, a, err := attachWarm(filepath.Join(t.TempDir(), "none.json"), t.TempDir(), operator.Subject{}); e != nil || a != nil || err != nil {
		t.Errorf("without a warm control plane: %v %v %v, want nothing", e, a, err)
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
