package specreport

import (
	"errors"
	"os"
	"path/filepath"
)

// Publish writes a tool's report, Markdown, to path (unless it is "") and, when GitHub Actions
// gives one, to the job's summary.
func Publish(md, path string) error {
	if path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
			return err
		}
	}
	summary := os.Getenv("GITHUB_STEP_SUMMARY")
	if summary == "" {
		return nil
	}
	f, err := os.OpenFile(summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(md)
	return errors.Join(err, f.Close())
}
