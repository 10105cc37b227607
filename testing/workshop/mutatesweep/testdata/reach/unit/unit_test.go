// Package unit holds the unit tests that TestReachRunsEachTestAndSpecAlone lists: tests, a
// benchmark and an example, which the sweep does not run.
package unit

import (
	"fmt"
	"testing"
)

func TestOne(t *testing.T) {}

func TestTwo(t *testing.T) {}

func BenchmarkThree(b *testing.B) {}

func ExampleFour() {
	fmt.Println("four")
	// Output: four
}
