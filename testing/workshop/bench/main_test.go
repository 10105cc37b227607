package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/operator-demo/controllers"
	"example.com/operator-demo/scenarios/samples"
)

// TestPause: pause waits its time, or returns the context's error at once when it is done.
func TestPause(t *testing.T) {
	started := time.Now()
	if err := pause(context.Background(), 50*time.Millisecond); err != nil || time.Since(started) < 50*time.Millisecond {
		t.Errorf("pause(50ms) = %v after %s", err, time.Since(started))
	}
	if err := pause(context.Background(), -time.Second); err != nil {
		t.Errorf("pause of a time already past = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	started = time.Now()
	if err := pause(ctx, time.Minute); !errors.Is(err, context.Canceled) || time.Since(started) > time.Second {
		t.Errorf("pause(1m) on a done context = %v after %s", err, time.Since(started))
	}
}

// TestEach: each calls f for every index, and fails with f's error.
func TestEach(t *testing.T) {
	var calls, sum atomic.Int64
	if err := each(100, 32, func(i int) error { calls.Add(1); sum.Add(int64(i)); return nil }); err != nil || calls.Load() != 100 || sum.Load() != 4950 {
		t.Errorf("each(100) = %v: %d calls, indices summing to %d", err, calls.Load(), sum.Load())
	}
	broken := errors.New("broken")
	if err := each(10, 32, func(i int) error {
		if i == 7 {
			return broken
		}
		return nil
	}); !errors.Is(err, broken) {
		t.Errorf("each with a failing call = %v", err)
	}
}

// TestSynced: the bare client's writes make a Sample what the operator makes it (samples.Synced),
// its ConfigMap controlled by the Sample and selected by the operator's cache.
func TestSynced(t *testing.T) {
	s := samples.New("team-a", "greeting", "hello world")
	s.Generation = 3
	cm := synced(s)
	if err := samples.Synced(s, cm); err != nil {
		t.Error(err)
	}
	if ref := metav1.GetControllerOf(cm); ref == nil || ref.Name != s.Name || cm.Labels[controllers.ManagedByLabel] != controllers.ManagedByValue || cm.Namespace != s.Namespace {
		t.Errorf("the bare client's ConfigMap: %+v", cm.ObjectMeta)
	}
}
