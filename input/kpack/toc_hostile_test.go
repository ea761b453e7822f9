package kpack_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/internal/util/intern"
)

// rawTOC is a MessagePack map of n toc pairs: pair i is key(i) -> {arch(i):
// entry}, written as given (keys may repeat, which Go maps cannot hold).
// The entry's ordinal is size's top byte and its original_size the rest.
func rawTOC(n int, key, arch func(i int) string, size uint32) []byte {
	str := func(b []byte, s string) []byte {
		b = append(b, 0xda)
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		return append(b, s...)
	}
	b := binary.BigEndian.AppendUint32([]byte{0xdf}, uint32(n))
	for i := range n {
		b = str(b, key(i))
		b = append(b, 0x81)
		b = str(b, arch(i))
		b = append(b, 0x83)
		b = str(b, "type")
		b = str(b, "hsaco")
		b = str(b, "ordinal")
		b = append(b, byte(size>>24)) // a positive fixint: 0, or past the 1-blob table
		b = str(b, "original_size")
		b = append(b, 0xce)
		b = binary.BigEndian.AppendUint32(b, size&0xffffff)
	}
	return b
}

func openRawTOC(t testing.TB, toc []byte) *kpack.Archive {
	return openRawTOCKeys(t, toc, nil)
}

// openRawTOCKeys is openRawTOC with the kernel keys held in keys.
func openRawTOCKeys(t testing.TB, toc []byte, keys *intern.Table) *kpack.Archive {
	data := kpacktest.Build(kpacktest.Spec{Group: "g", Arches: []string{"gfx942"},
		Kernels: []kpacktest.Kernel{{Key: "k#0", Arch: "gfx942", Data: []byte("code")}},
		Mutate:  func(m map[string]any) { m["toc"] = kpacktest.RawMsgpack(toc) }})
	a, err := kpack.OpenOptions(bytes.NewReader(data), int64(len(data)), kpack.Options{SkipFrameChain: true, MaxEntries: 1 << 21, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// toc-quadratic-arches: one kernel key repeated in the TOC map with a new
// arch each time, repeated with the same arch, or one kernel with many
// arches, and many duplicates of suspect entries, each parse in time
// linear in the entries: the runtime's answer (the last entry per arch)
// is kept.
func TestRepeatedTOCKeysLinear(t *testing.T) {
	const n = 100000
	cases := []struct {
		name      string
		key, arch func(int) string
		size      uint32
		entries   int
	}{
		{"key repeated, new arch", func(int) string { return "k#0" }, func(i int) string { return fmt.Sprintf("gfx%d", i) }, 4, n},
		{"key repeated, same arch", func(int) string { return "k#0" }, func(int) string { return "gfx942" }, 4, 1},
		{"suspect duplicates", func(i int) string { return fmt.Sprintf("k#%d", i%(n/2)) }, func(int) string { return "gfx942" }, 5<<24 | 4, n / 2},
	}
	for _, c := range cases {
		start := time.Now()
		a := openRawTOC(t, rawTOC(n, c.key, c.arch, c.size))
		if a.Entries != c.entries {
			t.Errorf("%s: %d entries, want %d", c.name, a.Entries, c.entries)
		}
		t.Logf("%s: %v", c.name, time.Since(start))
	}
}

// Copies of an archive opened through one Shared parse once: the second
// shares the first's Kernels (same TOCID) but is its own Archive; an
// archive with the same TOC but another zstd frame count is parsed again.
func TestSharedTOC(t *testing.T) {
	var ks []kpacktest.Kernel
	for i := range 3000 {
		ks = append(ks, kpacktest.Kernel{Key: fmt.Sprintf("lib/libx.so#%d", i), Arch: "gfx942", Data: []byte("code")})
	}
	data := kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: ks})
	sh := &kpack.Shared{}
	opt := kpack.Options{SkipFrameChain: true, Shared: sh}
	open := func(d []byte) *kpack.Archive {
		a, err := kpack.OpenOptions(bytes.NewReader(d), int64(len(d)), opt)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a, b := open(data), open(bytes.Clone(data))
	if a.TOCSize < kpack.MinSharedTOC {
		t.Fatalf("TOC of %d bytes, under MinSharedTOC", a.TOCSize)
	}
	if a == b || a.TOCID() != b.TOCID() || len(b.Kernels) != 3000 || b.Entries != a.Entries {
		t.Fatalf("copy: same archive %v, same TOC %v, %d kernels", a == b, a.TOCID() == b.TOCID(), len(b.Kernels))
	}
	if err := b.IndexFrames(bytes.NewReader(data)); err != nil || !b.FrameChain || a.FrameChain {
		t.Fatalf("IndexFrames on the copy: %v, chain %v, original's %v", err, b.FrameChain, a.FrameChain)
	}
	lone := kpack.Options{SkipFrameChain: true, Shared: &kpack.Shared{Sizes: func(int64) bool { return false }}}
	x, _ := kpack.OpenOptions(bytes.NewReader(data), int64(len(data)), lone)
	y, _ := kpack.OpenOptions(bytes.NewReader(data), int64(len(data)), lone)
	if x == nil || y == nil || x.TOCID() == y.TOCID() {
		t.Errorf("archives of a size Sizes refuses share a TOC")
	}
	other := bytes.Clone(data)
	other[a.ZstdOffset]++ // another frame count
	if c := open(other); c.TOCID() == a.TOCID() || c.FrameCount == a.FrameCount {
		t.Errorf("an archive with another frame count shares the TOC")
	}
}

// With the kernel keys held in a table (as a build's loader opens
// archives), a TOC whose keys repeat, in one archive or across two
// opened one after the other, keeps the same entries and problems as
// without: the table tells a key repeated within the archive (Seen)
// from one met in an earlier archive.
func TestRepeatedTOCKeysInterned(t *testing.T) {
	const n = 40
	tocs := map[string][]byte{
		"key repeated, new arch":  rawTOC(n, func(int) string { return "k#0" }, func(i int) string { return fmt.Sprintf("gfx%d", i) }, 4),
		"key repeated, same arch": rawTOC(n, func(int) string { return "k#0" }, func(int) string { return "gfx942" }, 4),
		"every other key repeats": rawTOC(n, func(i int) string { return fmt.Sprintf("k#%d", i/2) }, func(i int) string { return fmt.Sprintf("gfx90%d", i%2) }, 4),
		"distinct keys":           rawTOC(n, func(i int) string { return fmt.Sprintf("k#%d", i) }, func(int) string { return "gfx942" }, 4),
	}
	keys := &intern.Table{}
	for _, name := range slices.Sorted(maps.Keys(tocs)) {
		for round := range 2 { // the second round meets every key in the table already
			want, got := openRawTOC(t, tocs[name]), openRawTOCKeys(t, tocs[name], keys)
			if !reflect.DeepEqual(got.Kernels, want.Kernels) || got.Entries != want.Entries || !reflect.DeepEqual(got.Problems, want.Problems) {
				t.Errorf("%s, round %d: with a key table, %d kernels, %d entries, %d problems; without, %d, %d, %d",
					name, round, len(got.Kernels), got.Entries, len(got.Problems), len(want.Kernels), want.Entries, len(want.Problems))
			}
		}
	}
}

// ArchTotals count each arch's kept entries and their sizes; a duplicate
// entry replaces the size of the one it replaces.
func TestArchTotals(t *testing.T) {
	const n = 30
	distinct := openRawTOC(t, rawTOC(n, func(i int) string { return fmt.Sprintf("k#%d", i) }, func(i int) string { return []string{"gfx90a", "gfx942"}[i%2] }, 7))
	want := []kpack.ArchTotal{{Arch: "gfx90a", Entries: n / 2, Bytes: 7 * n / 2}, {Arch: "gfx942", Entries: n / 2, Bytes: 7 * n / 2}}
	if !reflect.DeepEqual(distinct.ArchTotals, want) {
		t.Errorf("distinct keys: %+v, want %+v", distinct.ArchTotals, want)
	}
	repeated := openRawTOC(t, rawTOC(n, func(int) string { return "k#0" }, func(int) string { return "gfx942" }, 9))
	if want := []kpack.ArchTotal{{Arch: "gfx942", Entries: 1, Bytes: 9}}; !reflect.DeepEqual(repeated.ArchTotals, want) {
		t.Errorf("one key repeated: %+v, want %+v", repeated.ArchTotals, want)
	}
	// k#0/gfx942 of 5 bytes, then of 9 bytes: the runtime keeps the last.
	one := func(size uint32) []byte {
		return rawTOC(1, func(int) string { return "k#0" }, func(int) string { return "gfx942" }, size)[5:]
	}
	two := append(binary.BigEndian.AppendUint32([]byte{0xdf}, 2), append(one(5), one(9)...)...)
	if got, want := openRawTOC(t, two).ArchTotals, []kpack.ArchTotal{{Arch: "gfx942", Entries: 1, Bytes: 9}}; !reflect.DeepEqual(got, want) {
		t.Errorf("a duplicate of another size: %+v, want %+v", got, want)
	}
}
