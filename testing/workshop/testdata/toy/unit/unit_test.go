// Package unit holds the toy unit tests of the sweep's tests: TestHangs hangs with TOY_HANG set,
// as a break might make it (TestAHangIsAKillByTimeout), having started, with TOY_CHILD set to a
// file, a child in a process group of its own, as envtest starts etcd (its pid in that file:
// TestWhatAHungTestStartedDiesWithIt); the benchmark and the example are not tests, which the
// sweep leaves out (TestReachRunsEachTestAndSpecAlone).
package unit

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

func TestFinishes(t *testing.T) {}

func TestHangs(t *testing.T) {
	if pidFile := os.Getenv("TOY_CHILD"); pidFile != "" {
		child := exec.Command("sleep", "600")
		child.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("TOY_HANG") != "" {
		select {}
	}
}

func BenchmarkThree(b *testing.B) {}

func ExampleFour() {
	fmt.Println("four")
	// Output: four
}
