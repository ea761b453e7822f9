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
