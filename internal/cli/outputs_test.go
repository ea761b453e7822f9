package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsRefusedBeforeTheCheck: a report file that is an input, lies
// inside an input tree (also through a symlinked folder), or is given
// twice is a usage error before anything is checked, and nothing is
// written.
func TestOutputsRefusedBeforeTheCheck(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "dist")
	if err := os.CopyFS(tree, os.DirFS(exampleDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tree, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(tree, "lib", "librocblas.so")
	before, _ := os.ReadFile(lib)
	r := filepath.Join(dir, "r.sarif")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "sarif=" + lib}, "--output " + lib + ": it lies inside the input " + tree + ": writing it would change what is checked; nothing was checked"},
		{[]string{"-o", "sarif=" + filepath.Join(dir, "link", "r.sarif")}, "it lies inside the input " + tree},
		{[]string{"-o", "sarif=" + tree}, "is a folder, not a file"},
		{[]string{"-o", r, "-o", "json=" + filepath.Join(dir, ".", "r.sarif")}, "is already given to --output (as " + r + ")"},
	} {
		args := append(append([]string{"check", "--no-policy", "--target", "gfx942", "-q"}, tc.args...), tree)
		code, _, stderr := run(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
	if after, _ := os.ReadFile(lib); string(after) != string(before) {
		t.Error("the input was changed")
	}
	if _, err := os.Lstat(r); err == nil {
		t.Error("a report was written")
	}
	// merge: a shard is an input too.
	shard := filepath.Join(dir, "s.json")
	if code, _, stderr := run(t, "check", "--no-policy", "--target", "gfx942", "--shard", "1/1", "-q", "-o", shard, tree); code != ExitFindings {
		t.Fatalf("check --shard: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "merge", "-o", "sarif="+shard, shard); code != ExitUsage || !strings.Contains(stderr, "it is the input "+shard) {
		t.Errorf("merge -o SHARD: exit %d: %s", code, stderr)
	}
}

// TestInferredTargetsWarn: without a policy or --target the target
// matrix comes from the build, and every report says so with a warning
// that names how to declare it; --target or a policy's variant has none.
func TestInferredTargetsWarn(t *testing.T) {
	code, out, _ := run(t, "check", "--no-policy", "--format", "json", exampleDir)
	if code != ExitFindings || !strings.Contains(out, `"kind": "inferred-targets"`) ||
		!strings.Contains(out, "declare the targets in the policy (variants: {release: {targets: [...]}} in policies.yaml) or pass --target for each") {
		t.Errorf("no policy: exit %d, no inferred-targets warning:\n%.2000s", code, out)
	}
	if _, out, _ := run(t, "check", "--no-policy", "--target", "gfx942", "--format", "json", exampleDir); strings.Contains(out, "inferred-targets") {
		t.Error("--target: an inferred-targets warning")
	}
}
