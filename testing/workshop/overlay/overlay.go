// Package overlay builds changed source into a go command without touching the tree: it writes
// the changed files and the file that `go build -overlay` / `go test -overlay` reads.
package overlay

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Write writes into dir each file of replace (an absolute path in the tree → its new content),
// and the overlay file that replaces them, and returns the overlay file's path. The written files
// are not named .go: dir may sit inside the module, where ./... would take them for a package.
func Write(dir string, replace map[string]string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	paths := make(map[string]string, len(replace))
	for file, content := range replace {
		path := filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(file, string(filepath.Separator)), string(filepath.Separator), "_")+".edited")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return "", err
		}
		paths[file] = path
	}
	overlay, err := json.Marshal(map[string]any{"Replace": paths})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, overlay, 0o644)
}
