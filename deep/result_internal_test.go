package deep

import (
	"testing"
	"unsafe"

	"github.com/rocm-tools/kpack-lint/kpack"
	"github.com/rocm-tools/kpack-lint/model"
)

// TestRecordRoundTrip: what set stores, object gives back (targets shared
// per archive, errors and sums per entry), and a record holds no pointer.
func TestRecordRoundTrip(t *testing.T) {
	s := newObjects(&model.Archive{Path: "a.kpack", Info: &kpack.Archive{Entries: 5}})
	in := []Object{
		{Code: Success, Target: "gfx942:xnack+", Size: 10, Ordinal: 0},
		{Code: Success, Target: "gfx90a", Size: 11, Ordinal: 1, Hashed: true, Sum: [32]byte{7}},
		{Code: Success, Target: "gfx942:xnack+", Size: 12, Ordinal: 2},
		{Code: kpack.DecompressionFailed, Err: "frame 3: corrupt", Ordinal: 3},
		{Code: kpack.OutOfMemory, Skipped: true, Size: 1 << 40, Ordinal: 4},
	}
	for i, o := range in {
		s.set(uint32(i), o)
	}
	for i, want := range in {
		got, ok := s.object(uint32(i))
		if !ok || got != want {
			t.Errorf("object %d = %+v, %v; want %+v", i, got, ok, want)
		}
	}
	if len(s.targets) != 2 {
		t.Errorf("targets %q, want the two distinct ones", s.targets)
	}
	if n := unsafe.Sizeof(record{}); n != 24 {
		t.Errorf("record is %d bytes, want 24", n)
	}
}

// TestTargetIndexMany: an archive with more distinct targets than a scan
// serves keeps every one apart, in order of first use.
func TestTargetIndexMany(t *testing.T) {
	s := newObjects(&model.Archive{Path: "a.kpack", Info: &kpack.Archive{Entries: 3 * 40}})
	for i := range uint32(3 * 40) {
		s.set(i, Object{Code: Success, Target: "gfx" + string(rune('a'+i%40)) + "00", Ordinal: i})
	}
	if len(s.targets) != 40 || s.byTarget == nil {
		t.Fatalf("%d targets, map %v; want 40 and a map", len(s.targets), s.byTarget != nil)
	}
	for i := range uint32(3 * 40) {
		o, _ := s.object(i)
		if want := "gfx" + string(rune('a'+i%40)) + "00"; o.Target != want {
			t.Fatalf("object %d target %q, want %q", i, o.Target, want)
		}
	}
}
