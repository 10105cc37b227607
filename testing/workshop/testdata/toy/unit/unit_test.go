// Package unit holds the toy unit tests of the sweep's tests: TestHangs hangs with TOY_HANG set,
// as a break might make it (TestAHangIsAKillByTimeout); the benchmark and the example are not
// tests, which the sweep leaves out (TestReachRunsEachTestAndSpecAlone).
package unit

import (
	"fmt"
	"os"
	"testing"
)

func TestFinishes(t *testing.T) {}

func TestHangs(t *testing.T) {
	if os.Getenv("TOY_HANG") != "" {
		select {}
	}
}

func BenchmarkThree(b *testing.B) {}

func ExampleFour() {
	fmt.Println("four")
	// Output: four
}
