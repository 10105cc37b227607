package cluster

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestAWarmControlPlaneThatDoesNotAnswerIsPassedOver: a warm control plane that is gone, or
// hangs, is passed over (the run then starts its own), never waited on.
func TestAWarmControlPlaneThatDoesNotAnswerIsPassedOver(t *testing.T) {
	// A listener that accepts connections and never answers: a hung API server.
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hung.Close() }()
	go func() {
		for {
			if _, err := hung.Accept(); err != nil {
				return
			}
		}
	}()
	// A port nothing listens on: a control plane that has died.
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	goneAddr := gone.Addr().String()
	_ = gone.Close()

	for name, host := range map[string]string{"hung": hung.Addr().String(), "gone": goneAddr} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "attachment.json")
			attachment, err := Attachment(&rest.Config{Host: "https://" + host, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, attachment, 0o600); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				e, a, err := attachWarm(path, t.TempDir())
				if e != nil || a != nil {
					t.Errorf("attached to a control plane that does not answer: %+v", e)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("attachWarm = %v, want it passed over without an error", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still waiting on a control plane that does not answer after 10 s")
			}
		})
	}

	if e, a, err := attachWarm(filepath.Join(t.TempDir(), "none.json"), t.TempDir()); e != nil || a != nil || err != nil {
		t.Errorf("without a warm control plane: %v %v %v, want nothing", e, a, err)
	}
}
