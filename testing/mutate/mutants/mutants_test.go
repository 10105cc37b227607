package mutants

import (
	"path/filepath"
	"testing"
)

// TestEveryMutantStillApplies: each edit still finds its text, once, in the controller as it is
// now, so `make mutate` breaks what it says it breaks. It fails in make test, before make mutate.
func TestEveryMutantStillApplies(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	for _, m := range All {
		mutated, err := m.Apply(root)
		if err != nil {
			t.Errorf("mutant %q: %v", m.Break, err)
			continue
		}
		if len(mutated) == 0 {
			t.Errorf("mutant %q changes nothing", m.Break)
		}
	}
}
