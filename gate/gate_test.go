package gate

import (
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

func newFinding(rule, subject, path, group string, kernels ...string) finding.Finding {
	return finding.Finding{RuleID: rule, Level: finding.LevelError, Message: subject, Subject: subject,
		Location: finding.Location{Path: path}, Group: group, Kernels: kernels}
}

func TestCompareBaselineStates(t *testing.T) {
	kept := newFinding("KPL003", "fft_test/rocFFT/gfx950:xnack+", "bin/rocfft-test", "fft_test")
	fixed := newFinding("KPL006", "sparse_lib/gfx1151", "lib/librocsparse.so.1", "sparse_lib")
	fixed.Location.Input = 3 // the baseline had more inputs
	otherShard := newFinding("KPL006", "blas_lib/gfx1151", "lib/librocblas.so.5", "blas_lib")
	gone := newFinding("KPL001", "old", "x", "fft_test")
	gone.Baseline = finding.BaselineAbsent // already absent in the baseline: dropped
	fresh := newFinding("KPL002", "fft_test/new", "bin/hipfft-test", "fft_test")

	keep := func(f finding.Finding) bool { return f.Group != "blas_lib" }
	got := Compare([]finding.Finding{kept, fresh}, []finding.Finding{kept, fixed, otherShard, gone}, keep, 1)
	states := map[string]string{}
	for _, f := range got {
		states[f.Subject] = f.Baseline
	}
	want := map[string]string{kept.Subject: "unchanged", fresh.Subject: "new", fixed.Subject: "absent"}
	if len(got) != 3 || len(states) != 3 {
		t.Fatalf("got %d findings: %+v", len(got), got)
	}
	for s, w := range want {
		if states[s] != w {
			t.Errorf("%s: state %q, want %q", s, states[s], w)
		}
	}
	absent := got[2]
	if absent.Location.Input != 0 || absent.Fingerprint != finding.Fingerprint(fixed) {
		t.Errorf("absent finding: input %d, fingerprint %q", absent.Location.Input, absent.Fingerprint)
	}
}

func TestWaive(t *testing.T) {
	rocfft := newFinding("KPL003", "s1", "bin/rocfft-test", "fft_test", "bin/rocfft-test#0", "bin/rocfft-test#1")
	hipfft := newFinding("KPL004", "s2", "bin/hipfft-test", "fft_test", "bin/hipfft-test#0", "bin/rocfft-test#0")
	blas := newFinding("KPL006", "s3", "lib/librocblas.so.5", "blas_lib")
	ws := []finding.Waiver{
		{Rule: "KPL003", Group: "fft_*", Reason: "ROCM-31644, fix in 7.2", Expires: "2026-12-31", Source: "policies.yaml:30"},
		{Kernel: "bin/rocfft-test#*", Reason: "kernel glob must cover every kernel", Source: "policies.yaml:33"},
		{Path: "lib/*.so.5", Reason: "old", Expires: "2025-01-31", Source: "policies.yaml:35"},
		{Fingerprint: finding.Fingerprint(blas), Reason: "never used: the expired one above matches first only if in force", Source: "policies.yaml:37"},
		{Group: "torch", Reason: "unused", Source: "w.yaml:2"},
	}
	fs := []finding.Finding{rocfft, hipfft, blas}
	notes := Waive(fs, ws, "2026-02-01", false)

	if s := fs[0].Suppression; s == nil || s.Expired || s.Source != "policies.yaml:30" || s.Justification != "ROCM-31644, fix in 7.2" || !fs[0].Suppressed() {
		t.Errorf("rocfft suppression = %+v", s)
	}
	if fs[1].Suppression != nil {
		t.Errorf("hipfft waived although one kernel is not bin/rocfft-test#*: %+v", fs[1].Suppression)
	}
	if s := fs[2].Suppression; s == nil || s.Source != "policies.yaml:37" || s.Expired {
		t.Errorf("blas: the expired path waiver is skipped, the fingerprint one waives: %+v", s)
	}
	var got []string
	for _, n := range notes {
		got = append(got, string(n.Level)+" "+n.Kind+" "+n.Source)
	}
	want := "note unused-waiver policies.yaml:33|warning expired-waiver policies.yaml:35|note unused-waiver w.yaml:2"
	if strings.Join(got, "|") != want {
		t.Errorf("notifications = %q, want %q", strings.Join(got, "|"), want)
	}
	if !strings.Contains(notes[1].Message, "expired on 2025-01-31") {
		t.Errorf("expired message = %q", notes[1].Message)
	}

	// Only the expired waiver matches: the finding counts again and says why.
	only := []finding.Finding{blas}
	Waive(only, ws[2:3], "2026-02-01", false)
	if s := only[0].Suppression; s == nil || !s.Expired || only[0].Suppressed() || s.Expires != "2025-01-31" {
		t.Errorf("expired waiver: %+v", s)
	}
	// On its expiry date it still waives.
	onDay := []finding.Finding{blas}
	Waive(onDay, ws[2:3], "2025-01-31", false)
	if !onDay[0].Suppressed() {
		t.Error("a waiver must still apply on its expires date")
	}
}

func TestMatchesNeedsASelector(t *testing.T) {
	f := newFinding("KPL003", "s", "p", "g", "k#0")
	if Matches(finding.Waiver{Rule: "KPL003", Reason: "r"}, f) {
		t.Error("a rule-only waiver must match nothing")
	}
	if Matches(finding.Waiver{Rule: "KPL004", Group: "g", Reason: "r"}, f) {
		t.Error("rule mismatch matched")
	}
	if !Matches(finding.Waiver{Rule: "KPL003", Path: "p", Group: "g", Kernel: "k#*", Reason: "r"}, f) {
		t.Error("all selectors match but the waiver does not")
	}
}
