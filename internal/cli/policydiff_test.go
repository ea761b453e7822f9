package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyDiffCommand: policy-diff on the example pair of policy's
// testdata (text and markdown, names from flags), a deleted and a first
// policy with --allow-missing, and the exit 2 cases.
func TestPolicyDiffCommand(t *testing.T) {
	dir := filepath.Join("..", "..", "policy", "testdata", "diff")
	base, head := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "head.yaml")
	code, out, stderr := run(t, "policy-diff", "--today", "2026-01-01", "--base-name", "policies.yaml@abc1234", "--head-name", "policies.yaml", base, head)
	if code != ExitOK || !strings.HasPrefix(out, "18 changes to policies.yaml can let more through the gate than policies.yaml@abc1234:\n"+
		"policies.yaml:25: waiver extended: (KPL003, group fft_test) now expires on 2027-06-30 (was 2026-03-31)") ||
		!strings.Contains(out, "\npolicies.yaml:15: rule turned down: KPL002 turned down to note (was error)\n") {
		t.Errorf("text: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = run(t, "policy-diff", "--format", "markdown", "--today", "2026-01-01", base, head)
	if code != ExitOK || !strings.HasPrefix(out, "### Policy changes\n\n18 changes to `"+filepath.ToSlash(head)+"` can let more through the gate than `"+filepath.ToSlash(base)+"`:\n\n- **waiver extended** at `") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
	missing := filepath.Join(t.TempDir(), "policies.yaml")
	if code, out, _ := run(t, "policy-diff", "--allow-missing", "--base-name", "b", "--head-name", "h", base, missing); code != ExitOK ||
		out != "1 change to h can let more through the gate than b:\nb: policy removed: the policy is deleted: the check runs without it\n" {
		t.Errorf("deleted: exit %d %q", code, out)
	}
	if code, out, _ := run(t, "policy-diff", "--allow-missing", "--today", "2026-01-01", missing, base); code != ExitOK || !strings.Contains(out, "waiver added: (KPL003, group fft_test), expires on 2026-03-31, reason ROCM-31644") {
		t.Errorf("first policy: exit %d\n%s", code, out)
	}
	bad := writeFile(t, filepath.Join(t.TempDir(), "bad.yaml"), "version: 1\nvariants: {release: {targest: [gfx942]}}\n")
	for name, args := range map[string][]string{
		"missing":   {base, missing},
		"bad":       {base, bad},
		"one arg":   {base},
		"format":    {"--format", "html", base, head},
		"days":      {"--max-waiver-days", "-2", base, head},
		"bad today": {"--today", "soon", base, head},
	} {
		if code, _, stderr := run(t, append([]string{"policy-diff"}, args...)...); code != ExitUsage {
			t.Errorf("%s: exit %d, want 2: %s", name, code, stderr)
		}
	}
}

// TestPolicyDiffWaiverFiles: waivers kept in a --waivers file are
// compared too, each change at the waiver file's line with its reason and
// owner; a waiver file only the head has is all added.
func TestPolicyDiffWaiverFiles(t *testing.T) {
	dir := t.TempDir()
	pol := writeFile(t, filepath.Join(dir, "p.yaml"), "version: 1\nvariants: {release: {targets: [gfx942]}}\n")
	kept := "  - {rule: KPL005, path: a.kpack, reason: r1, expires: 2026-06-01}\n"
	base := writeFile(t, filepath.Join(dir, "wb.yaml"), "waivers:\n"+kept)
	head := writeFile(t, filepath.Join(dir, "wh.yaml"), "waivers:\n"+kept+"  - {path: \"**\", reason: \"::error all\", owner: mallory, expires: 2026-02-01}\n")
	code, out, stderr := run(t, "policy-diff", "--today", "2026-01-01", "--base-waivers", base, "--head-waivers", head, "--head-waivers-name", "waivers.yaml", pol, pol)
	want := "waivers.yaml:3: waiver added: (path **), expires on 2026-02-01, reason ::error all, owner mallory; too broad: it names no rule"
	if code != ExitOK || !strings.HasPrefix(out, "1 change to "+filepath.Base(pol)+" can let more through the gate than "+filepath.Base(pol)+":\n"+want) {
		t.Errorf("exit %d\n%s%s\nwant %s...", code, out, stderr, want)
	}
	missing := filepath.Join(dir, "none.yaml")
	if code, out, _ := run(t, "policy-diff", "--allow-missing", "--today", "2026-01-01", "--base-waivers", missing, "--head-waivers", head, pol, pol); code != ExitOK ||
		!strings.HasPrefix(out, "2 changes to "+filepath.Base(pol)+" can let more through the gate than "+filepath.Base(pol)+":\n") {
		t.Errorf("a first waiver file: exit %d\n%s", code, out)
	}
}
