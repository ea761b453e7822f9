// Package testtree writes small file trees for tests.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (slash-separated relative paths -> contents) below a
// new temporary folder, creating the folders they need, and returns the
// folder; a failure ends the test.
func Write(t testing.TB, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
