package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --format html and -o html=FILE (or a .html name) write the page; it
// names what was checked and lists every finding with its command.
func TestHTMLOutput(t *testing.T) {
	ex := filepath.Join(testdata, "example")
	dir := t.TempDir()
	code, _, stderr := run(t, "check", "--policy", "../../policies.yaml", "--variant", "asan", "-q",
		"-o", "html="+filepath.Join(dir, "a.out"), "-o", filepath.Join(dir, "b.html"), ex)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"a.out", "b.html"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		page := string(data)
		if err != nil || !strings.HasPrefix(page, "<!DOCTYPE html>") || strings.Count(page, `<article class="finding`) != 3 ||
			!strings.Contains(page, "kpack-lint explain --policy ../../policies.yaml --variant asan") ||
			!strings.Contains(page, `data-group="fft_test" data-target="gfx942:xnack&#43;" data-agent="gfx942:sramecc&#43;:xnack&#43;" data-level="error"`) {
			t.Errorf("%s: %v\n%.2000s", name, err, page)
		}
	}
	if _, out, _ := run(t, "check", "--policy", "../../policies.yaml", "--format", "html", ex); !strings.HasPrefix(out, "<!DOCTYPE html>") {
		t.Errorf("--format html on stdout: %.60q", out)
	}
}
