//go:build linux

package controlplane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindWhereTheWorkingDirectoryIsGoneIsAnError: a working directory removed under the test
// process (Linux lets it be; Windows does not) is getwd's error, never a path.
func TestFindWhereTheWorkingDirectoryIsGoneIsAnError(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if got, err := Find(DefaultCRDs); err == nil || got != "" || !strings.Contains(err.Error(), "getwd") {
		t.Errorf("Find in a removed working directory = %q, %v; want getwd's error", got, err)
	}
}
