package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPolicyWaivers(t *testing.T) {
	p := mustParse(t, "version: 1\nwaivers:\n  - rule: KPL003\n    group: fft_test\n    reason: rocFFT keeps stripping flags (ROCM-31644)\n    expires: 2026-12-31\n  - {fingerprint: abc, reason: known}\n")
	if len(p.Waivers) != 2 {
		t.Fatalf("waivers = %+v", p.Waivers)
	}
	w := p.Waivers[0]
	if w.Rule != "KPL003" || w.Group != "fft_test" || w.Expires != "2026-12-31" || w.Source != ":3" {
		t.Errorf("waiver = %+v", w)
	}
	if w.Expired("2026-12-31") || !w.Expired("2027-01-01") || p.Waivers[1].Expired("9999-12-31") {
		t.Error("Expired: in force through its date, never without one")
	}
}

func TestLoadWaivers(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list.yaml")
	os.WriteFile(list, []byte("# accepted\n- {path: \"bin/*\", reason: r}\n- {kernel: \"lib/x.so#*\", reason: s, expires: 2025-01-01}\n"), 0o644)
	ws, err := LoadWaivers(list)
	if err != nil || len(ws) != 2 || ws[1].Source != list+":3" || ws[1].Expires != "2025-01-01" {
		t.Fatalf("LoadWaivers(list) = %+v, %v", ws, err)
	}
	keyed := filepath.Join(dir, "keyed.yaml")
	os.WriteFile(keyed, []byte("waivers:\n  - {group: g, reason: r}\n"), 0o644)
	if ws, err := LoadWaivers(keyed); err != nil || len(ws) != 1 || ws[0].Source != keyed+":2" {
		t.Errorf("LoadWaivers(keyed) = %+v, %v", ws, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("- {group: g}\n"), 0o644)
	if _, err := LoadWaivers(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":1: waivers[0]: reason is required") {
		t.Errorf("LoadWaivers(bad) err = %v", err)
	}
}
