package report

import (
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// A finding about a copy (or a moved library) explains that binary:
// --binary names it when its kernel keys name another file; a binary
// under an install prefix the keys leave out needs none.
func TestHintNamesTheBinary(t *testing.T) {
	r := Run{Rules: testRules(), Checked: &Checked{}, Rerun: Rerun{Inputs: []string{"dist"}}}
	for path, want := range map[string]string{
		"lib64/libx.so":        "kpack-lint explain --no-policy --agent gfx1100 --binary lib64/libx.so lib/libx.so#0-2 dist",
		"lib/libx.so":          "kpack-lint explain --no-policy --agent gfx1100 lib/libx.so#0-2 dist",
		"opt/rocm/lib/libx.so": "kpack-lint explain --no-policy --agent gfx1100 lib/libx.so#0-2 dist",
	} {
		f := finding.Finding{RuleID: "KPL001", Location: finding.Location{Path: path}, Agents: []string{"gfx1100"}, Loader: "fallthrough",
			Kernels: []string{"lib/libx.so#0", "lib/libx.so#1", "lib/libx.so#2"}}
		if got := Hint(r, f); got != want {
			t.Errorf("%s:\n got %s\nwant %s", path, got, want)
		}
	}
}
