package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestFingerprint(t *testing.T) {
	f := Finding{RuleID: "KPL002", Subject: "fft_test", Message: "a", Location: Location{Path: "x"}}
	sum := sha256.Sum256([]byte("KPL002\x00fft_test"))
	if got, want := Fingerprint(f), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Fingerprint = %s, want %s", got, want)
	}
	moved := f
	moved.Message = "b"
	moved.Location = Location{Input: 1, Path: "y", Region: &Region{Offset: 1, Length: 2}}
	if Fingerprint(moved) != Fingerprint(f) {
		t.Error("fingerprint depends on message or location")
	}
	other := f
	other.Subject = "torch"
	if Fingerprint(other) == Fingerprint(f) {
		t.Error("fingerprint ignores the subject")
	}
}

// TestSortTotal: findings that tie on rule, path and message are ordered
// by input, then fingerprint, then baseline state, whatever order they
// come in, so sorting before and after the gate (and a merge of shards)
// gives one order.
func TestSortTotal(t *testing.T) {
	mk := func(rule, path, msg string, input int, subject, baseline string) Finding {
		return Finding{RuleID: rule, Message: msg, Location: Location{Input: input, Path: path}, Subject: subject, Baseline: baseline}
	}
	want := []Finding{
		mk("KPL001", "a", "m", 0, "s", ""),
		mk("KPL001", "a", "n", 0, "s", ""),
		mk("KPL001", "b", "m", 0, "s", ""),
		mk("KPL001", "b", "m", 1, "s", ""),
		mk("KPL002", "a", "m", 0, "s", BaselineAbsent),
		mk("KPL002", "a", "m", 0, "s", BaselineNew),
	}
	// Two subjects with the same rule, path, message and input: the
	// fingerprint decides.
	x, y := mk("KPL003", "a", "m", 0, "x", ""), mk("KPL003", "a", "m", 0, "y", "")
	if Fingerprint(x) > Fingerprint(y) {
		x, y = y, x
	}
	want = append(want, x, y)
	for _, perm := range [][]int{{7, 6, 5, 4, 3, 2, 1, 0}, {3, 1, 7, 0, 5, 2, 6, 4}} {
		got := make([]Finding, len(want))
		for i, j := range perm {
			got[i] = want[j]
		}
		Sort(got)
		for i := range got {
			if Compare(got[i], want[i]) != 0 || got[i].Subject != want[i].Subject || got[i].Baseline != want[i].Baseline {
				t.Fatalf("order %v: position %d is %+v, want %+v", perm, i, got[i], want[i])
			}
		}
	}
}
