package policy

import (
	"reflect"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// TestBroadWaivers: each waiver of the waive-all recipe is too broad for
// its selectors and its year-9999 expiry; a narrow one within the limit,
// a fingerprint waiver with a date and an expired one are not.
func TestBroadWaivers(t *testing.T) {
	ws := []finding.Waiver{
		{Path: "*", Reason: "r", Expires: "9999-12-31", Source: "dist/policies.yaml:6"},
		{Path: "*/*", Reason: "r", Expires: "9999-12-31", Source: "dist/policies.yaml:7"},
		{Rule: "KPL003", Group: "*", Reason: "r", Expires: "2026-06-01", Source: "p.yaml:8"},
		{Rule: "KPL003", Path: "*/**", Kernel: "?*/*", Reason: "r", Expires: "2026-06-01", Source: "p.yaml:9"},
		{Rule: "KPL003", Path: "*/*/**", Group: "*/*", Reason: "r", Expires: "2026-06-01", Source: "p.yaml:15"}, // "*/*" matches no group
		{Rule: "KPL003", Group: "fft_test", Reason: "r", Expires: "2026-06-01", Source: "p.yaml:10"},            // narrow, 151 days
		{Fingerprint: "ab12", Reason: "r", Expires: "2026-06-01", Source: "p.yaml:11"},                          // one finding
		{Group: "*", Reason: "r", Expires: "2025-12-31", Source: "p.yaml:12"},                                   // expired: the gate says so
		{Rule: "KPL003", Group: "fft_test", Reason: "r", Source: "p.yaml:13"},                                   // no date
		{Rule: "KPL003", Path: "bin/*", Reason: "r", Expires: "2027-01-02", Source: "p.yaml:14"},                // 366 days
	}
	got := map[string][]string{}
	for _, b := range BroadWaivers(ws, "2026-01-01", DefaultMaxWaiverDays) {
		got[b.Waiver.Source] = b.Why
	}
	want := map[string][]string{
		"dist/policies.yaml:6": {"it names no rule (it waives every rule's findings)", `path "*" matches every file at the top of the input`,
			"it expires on 9999-12-31, 2912442 days ahead (more than 365)"},
		"dist/policies.yaml:7": {"it names no rule (it waives every rule's findings)", `path "*/*" matches every file 1 folder deep`,
			"it expires on 9999-12-31, 2912442 days ahead (more than 365)"},
		"p.yaml:8":  {`group "*" matches every kpack group`},
		"p.yaml:9":  {`path "*/**" matches every file`, `kernel "?*/*" matches every kernel key 1 folder deep`},
		"p.yaml:15": {`path "*/*/**" matches every file 1 or more folders deep`},
		"p.yaml:13": {"it has no expires date (it waives for ever)"},
		"p.yaml:14": {"it expires on 2027-01-02, 366 days ahead (more than 365)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// --max-waiver-days 0 checks selectors only.
	if n := len(BroadWaivers(ws[5:], "2026-01-01", 0)); n != 0 {
		t.Errorf("maxDays 0: %d broad waivers, want 0", n)
	}
	b := BroadWaivers(ws[:1], "2026-01-01", 365)[0]
	if want := `waiver (path *) is too broad: it names no rule (it waives every rule's findings); path "*" matches every file at the top of the input; ` +
		"it expires on 9999-12-31, 2912442 days ahead (more than 365). Fix: name the rule and the exact path, group or kernel (or the fingerprint) " +
		"of the findings it accepts, and give an expires date at most 365 days ahead and renew it when it comes"; b.Message() != want {
		t.Errorf("message\n%s\nwant\n%s", b.Message(), want)
	}
}

func TestWildcardOnly(t *testing.T) {
	for glob, want := range map[string]bool{"*": true, "**": true, "*/*/*": true, "?*": true, "**/*": true,
		"bin/*": false, "*.so": false, "": false, "*/": false, "lib/**": false} {
		if got := WildcardOnly(glob); got != want {
			t.Errorf("WildcardOnly(%q) = %v, want %v", glob, got, want)
		}
	}
}
