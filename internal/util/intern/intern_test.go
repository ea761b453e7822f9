package intern

import (
	"testing"
	"unsafe"
)

func TestString(t *testing.T) {
	var tab Table
	a := tab.String([]byte("lib/x.so#0"))
	b := tab.String([]byte("lib/x.so#0"))
	c := tab.String([]byte("lib/x.so#1"))
	if a != "lib/x.so#0" || c != "lib/x.so#1" || tab.Len() != 2 {
		t.Fatalf("got %q %q, %d strings", a, c, tab.Len())
	}
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("equal strings do not share their bytes")
	}
	if n := testing.AllocsPerRun(100, func() { tab.String([]byte("lib/x.so#1")) }); n != 0 {
		t.Errorf("a hit allocates %v times", n)
	}
}

// TestSeen: Seen tells a string met earlier in the round from a new one,
// each round afresh, and shares the bytes String gives.
func TestSeen(t *testing.T) {
	var tab Table
	tab.Round(4)
	for i, want := range []struct {
		key  string
		seen bool
	}{{"a#0", false}, {"b#0", false}, {"a#0", true}} {
		if s, seen := tab.Seen([]byte(want.key)); s != want.key || seen != want.seen {
			t.Errorf("round 1, call %d: Seen(%q) = %q, %v", i, want.key, s, seen)
		}
	}
	tab.Round(0)
	if _, seen := tab.Seen([]byte("a#0")); seen {
		t.Error("a#0 is seen in a new round")
	}
	if _, seen := tab.Seen([]byte("a#0")); !seen {
		t.Error("a#0 is not seen the second time in round 2")
	}
	if unsafe.StringData(tab.String([]byte("b#0"))) != unsafe.StringData(func() string { s, _ := tab.Seen([]byte("b#0")); return s }()) {
		t.Error("Seen and String give different copies")
	}
	tab.round = ^uint32(0) // the next round wraps
	tab.Round(0)
	if _, seen := tab.Seen([]byte("b#0")); seen || tab.round != 1 {
		t.Errorf("after the round counter wraps, b#0 is seen (round %d)", tab.round)
	}
	if tab.Len() != 2 {
		t.Errorf("Len = %d, want 2", tab.Len())
	}
}
