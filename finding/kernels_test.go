package finding

import (
	"reflect"
	"strconv"
	"testing"
)

func TestCompactKernels(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"a#0", "a#1", "a#2", "a#57", "b#3"}, "a#0-2,57 b#3"},
		{[]string{"lib/x.so#10", "lib/x.so#9", "lib/x.so#100"}, "lib/x.so#9-10,100"},
		{[]string{"a#1", "a#1"}, "a#1"},
		{[]string{"nokey"}, "nokey"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := CompactKernels(tt.in); got != tt.want {
			t.Errorf("CompactKernels(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCompactKernelsRanges(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a#0", "a#1", "a#2", "a#57", "b#3"}, "a#0-2,57 b#3"},
		{[]string{"bin/rocfft-test#0", "bin/rocfft-test#1", "bin/rocfft-test#2"}, "bin/rocfft-test#0-2"},
		{[]string{"lib/x.so#10", "lib/x.so#9", "lib/x.so#2", "lib/x.so#100"}, "lib/x.so#2,9-10,100"},
		{[]string{"lib/x.so#0", "lib/x.so#1", "lib/x.so#3", "lib/x.so#4"}, "lib/x.so#0-1,3-4"},
		{[]string{"b#1", "a#1", "a#1"}, "a#1 b#1"},
		{[]string{"a#b#7", "a#b#8"}, "a#b#7-8"},
		{[]string{"plain", "x#-1", "x#0"}, "plain x#-1 x#0"},
		{[]string{"y#4294967295", "y#4294967296"}, "y#4294967295 y#4294967296"},
	}
	for _, tt := range tests {
		if got := CompactKernels(tt.in); got != tt.want {
			t.Errorf("CompactKernels(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSortKernels(t *testing.T) {
	keys := []string{"b#1", "a#10", "a#9", "a#x"}
	SortKernels(keys)
	if want := []string{"a#9", "a#10", "a#x", "b#1"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("got %q, want %q", keys, want)
	}
}

func TestSplitKey(t *testing.T) {
	for _, tt := range []struct {
		key  string
		name string
		co   uint64
		ok   bool
	}{
		{"lib/librocblas.so#0", "lib/librocblas.so", 0, true},
		{"a#b#7", "a#b", 7, true},
		{"a#4294967296", "a#4294967296", 0, false},
		{"a", "a", 0, false},
	} {
		name, co, ok := SplitKey(tt.key)
		if name != tt.name || co != tt.co || ok != tt.ok {
			t.Errorf("SplitKey(%q) = %q %d %v", tt.key, name, co, ok)
		}
	}
}

// TestSplitKeyAsParseUint: SplitKey reads the co_index as
// strconv.ParseUint(s, 10, 32) does.
func TestSplitKeyAsParseUint(t *testing.T) {
	for _, s := range []string{"0", "7", "007", "4294967295", "4294967296", "99999999999999999999999", "00000000000000000000000042",
		"", "-1", "+1", "1a", " 1", "1_0", "١"} {
		n, err := strconv.ParseUint(s, 10, 32)
		name, co, ok := SplitKey("lib/x.so#" + s)
		if ok != (err == nil) || (ok && (co != n || name != "lib/x.so")) || (!ok && name != "lib/x.so#"+s) {
			t.Errorf("SplitKey(#%q) = %q, %d, %v; ParseUint = %d, %v", s, name, co, ok, n, err)
		}
	}
}
