package poll

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestUntilSaysWhyTheConditionNeverHeld(t *testing.T) {
	calls := 0
	err := Until(context.Background(), time.Millisecond, 50*time.Millisecond, func(context.Context) error {
		calls++
		return errors.New("the object holds an old value")
	})
	if err == nil || !strings.Contains(err.Error(), "not within 50ms: the object holds an old value") {
		t.Errorf("Until = %v, want the condition's last error", err)
	}
	if calls < 2 {
		t.Errorf("checked %d times, want it polled", calls)
	}
}

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	err := Until(context.Background(), time.Millisecond, time.Minute, func(context.Context) error {
		if calls++; calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("Until = %v after %d checks, want nil after 3", err, calls)
	}
}

func TestStopEndsUntilAtOnce(t *testing.T) {
	calls := 0
	gone := errors.New("the operator exited")
	err := Until(context.Background(), time.Millisecond, time.Minute, func(context.Context) error {
		calls++
		return Stop(gone)
	})
	if !errors.Is(err, gone) || calls != 1 {
		t.Errorf("Until = %v after %d checks, want %v after 1", err, calls, gone)
	}
}

func TestUntilChecksAtOnceFirst(t *testing.T) {
	err := Until(context.Background(), time.Hour, 100*time.Millisecond, func(context.Context) error { return nil })
	if err != nil {
		t.Errorf("Until = %v, want nil from the first check, before the first interval has passed", err)
	}
}
