package verify

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
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

// TestSetConcurrent: workers setting one archive's objects at once (new
// targets published while others read them, errors, sums) store every
// object as given. Run with -race.
func TestSetConcurrent(t *testing.T) {
	const n = 4000
	s := newObjects(&model.Archive{Path: "a.kpack", Info: &kpack.Archive{Entries: n}})
	want := func(i uint32) Object {
		o := Object{Code: Success, Target: fmt.Sprintf("gfx9%02d", i%12), Size: uint64(i), Ordinal: i}
		switch i % 7 {
		case 3:
			o = Object{Code: kpack.DecompressionFailed, Err: fmt.Sprintf("frame %d: corrupt", i), Ordinal: i}
		case 5:
			o.Hashed, o.Sum = true, [32]byte{byte(i)}
		}
		return o
	}
	var wg sync.WaitGroup
	for w := range uint32(4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				s.set(i, want(i))
			}
		}()
	}
	wg.Wait()
	for i := range uint32(n) {
		if got, ok := s.object(i); !ok || got != want(i) {
			t.Fatalf("object %d = %+v, want %+v", i, got, want(i))
		}
	}
	if len(s.targets) != 12 {
		t.Errorf("%d targets, want 12", len(s.targets))
	}
}
