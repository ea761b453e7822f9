package verify_test

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// zframe builds a frame with no content size (fcs < 0, 256 KiB window)
// or a single-segment one with content size fcs.
func zframe(fcs int64, blocks ...[]byte) []byte { return kpacktest.ZstdFrame(fcs, 0x38, blocks...) }

func blockHeader(n int, typ uint32, last bool) []byte { return kpacktest.BlockHeader(n, typ, last) }

// rleBlocks is total bytes of c in RLE blocks, the last one ending the frame.
func rleBlocks(total int, c byte) [][]byte { return kpacktest.RLEBlocks(total, c, true) }

func one(ord, size uint64) map[string]map[string][2]uint64 {
	return map[string]map[string][2]uint64{"k#0": {"gfx942": {ord, size}}}
}

// Frames without a content size that decompress to 1 GiB, filed with an
// original_size of 1 GiB-1, in four archives verified in parallel with a
// 16 MiB budget: each fails with DECOMPRESSION_FAILED once its output passes
// original_size, and nothing near original_size is ever allocated (the
// tester measured 2.4 GB RSS per archive before).
func TestVerifyNoFCSBombsBounded(t *testing.T) {
	size := 1 << 30
	if testing.Short() {
		size = 64 << 20
	}
	bomb := zframe(-1, rleBlocks(size, 'A')...)
	files := map[string][]byte{}
	for _, g := range []string{"a", "b", "c", "d"} {
		files[g+"_gfx942.kpack"] = zstdArchive([][]byte{bomb}, []string{"gfx942"}, one(0, uint64(size-1)))
	}
	b := load(t, files)
	const budget = 16 << 20
	var res *verify.Result
	n := kpacktest.Allocated(func() { res = verify.Verify(b, verify.Options{Workers: 4, MaxMemory: budget}) })
	if n > 64<<20 {
		t.Errorf("allocated %d bytes", n)
	}
	if res.Peak > budget {
		t.Errorf("Peak = %d", res.Peak)
	}
	for _, k := range res.Sorted() {
		o := obj(res, k)
		if o.Code != kpack.DecompressionFailed || o.Skipped || !strings.Contains(o.Err, "more than original_size") {
			t.Errorf("%v = %+v", k, o)
		}
	}
	if res.Len() != 4 || len(res.Problems) != 4 {
		t.Errorf("objects %d, problems %d", res.Len(), len(res.Problems))
	}
	// Same bomb with a small original_size: decoded into the buffer, still bounded.
	small := load(t, map[string][]byte{"a_gfx942.kpack": zstdArchive([][]byte{bomb}, []string{"gfx942"}, one(0, 100))})
	n = kpacktest.Allocated(func() { res = verify.Verify(small, verify.Options{Workers: 1, MaxMemory: budget}) })
	if o := obj(res, dk("a_gfx942.kpack", "k#0", "gfx942")); o.Code != kpack.DecompressionFailed || n > 8<<20 {
		t.Errorf("small original_size: %+v, allocated %d", o, n)
	}
}

// An object larger than the budget is streamed: hashed, counted and its
// ELF header decoded, without holding it.
func TestVerifyLargeObjectStreamed(t *testing.T) {
	const size = 48 << 20
	head := codeobjtest.CodeObject("gfx942:xnack-", "")
	blocks := append([][]byte{append(blockHeader(len(head), 0, false), head...)}, rleBlocks(size-len(head), 0)...)
	frame := zframe(-1, blocks...)
	want := append(append([]byte(nil), head...), make([]byte, size-len(head))...)
	sum := sha256.Sum256(want)
	want = nil
	b := load(t, map[string][]byte{"a_gfx942.kpack": zstdArchive([][]byte{frame}, []string{"gfx942"}, one(0, size))})
	var res *verify.Result
	n := kpacktest.Allocated(func() { res = verify.Verify(b, verify.Options{Workers: 2, MaxMemory: 4 << 20, HashAll: true}) })
	o := obj(res, dk("a_gfx942.kpack", "k#0", "gfx942"))
	if !o.OK() || o.Size != size || o.Sum != sum || o.Target != "gfx942:xnack-" {
		t.Errorf("object = %+v", o)
	}
	if n > 16<<20 || res.Peak > 4<<20 || res.Bytes != size {
		t.Errorf("allocated %d, peak %d, bytes %d", n, res.Peak, res.Bytes)
	}
	// With room for it, the same object is held and parsed whole.
	big := verify.Verify(b, verify.Options{Workers: 1, MaxMemory: 64 << 20, HashAll: true})
	if got := obj(big, dk("a_gfx942.kpack", "k#0", "gfx942")); got != o {
		t.Errorf("held %+v, streamed %+v", got, o)
	}
}

// A frame whose window exceeds the budget (a single-segment frame's window
// is its content size) is not verified: OUT_OF_MEMORY with Skipped, no
// problem for the archive, and Result.Fetch falls back to the TOC. With a
// budget that holds it, the same frame (content size 1 GiB = original_size
// in the slow variant) verifies.
func TestVerifyWindowOverBudgetSkipped(t *testing.T) {
	size := 1 << 30
	if testing.Short() {
		size = 32 << 20
	}
	head := codeobjtest.CodeObject("gfx942", "")
	blocks := append([][]byte{append(blockHeader(len(head), 0, false), head...)}, rleBlocks(size-len(head), 0)...)
	frame := zframe(int64(size), blocks...)
	b := load(t, map[string][]byte{"a_gfx942.kpack": zstdArchive([][]byte{frame}, []string{"gfx942"}, one(0, uint64(size)))})
	key := dk("a_gfx942.kpack", "k#0", "gfx942")
	var res *verify.Result
	n := kpacktest.Allocated(func() { res = verify.Verify(b, verify.Options{MaxMemory: 16 << 20}) })
	o := obj(res, key)
	if o.Code != kpack.OutOfMemory || !o.Skipped || !strings.Contains(o.Err, "not verified") || n > 4<<20 {
		t.Errorf("object %+v, allocated %d", o, n)
	}
	if len(res.Problems) != 0 {
		t.Errorf("problems %v", res.Problems)
	}
	if got := res.Fetch(b.Archives[0], "k#0", "gfx942"); got != kpack.Success {
		t.Errorf("Fetch = %v", got)
	}
	res = verify.Verify(b, verify.Options{MaxMemory: int64(size) + 1<<20})
	if o := obj(res, key); !o.OK() || o.Size != uint64(size) || o.Target != "gfx942" {
		t.Errorf("with room: %+v", o)
	}
}

// Bombs, streamed, skipped and ordinary objects give the same result on 1
// and 8 workers.
func TestVerifyBombsDeterministic(t *testing.T) {
	co := codeobjtest.CodeObject("gfx942", "")
	big := append([][]byte{append(blockHeader(len(co), 0, false), co...)}, rleBlocks(6<<20, 0)...)
	frames := [][]byte{
		zframe(-1, rleBlocks(32<<20, 'A')...),
		zframe(-1, big...),
		zframe(int64(6<<20+len(co)), big...),
		rawFrame(co, uint64(len(co))),
		zframe(100, rleBlocks(1<<20, 'A')...),
	}
	entries := map[string]map[string][2]uint64{
		"k#0": {"gfx942": {0, 32<<20 - 1}},
		"k#1": {"gfx942": {1, uint64(6<<20 + len(co))}},
		"k#2": {"gfx942": {2, uint64(6<<20 + len(co))}},
		"k#3": {"gfx942": {3, uint64(len(co))}},
		"k#4": {"gfx942": {4, 100}},
	}
	files := map[string][]byte{}
	for _, g := range []string{"a", "b", "c", "d", "e", "f"} {
		files[g+"_gfx942.kpack"] = zstdArchive(frames, []string{"gfx942"}, entries)
	}
	b := load(t, files)
	r1 := verify.Verify(b, verify.Options{Workers: 1, MaxMemory: 4 << 20})
	r8 := verify.Verify(b, verify.Options{Workers: 8, MaxMemory: 4 << 20})
	if r8.Peak > 4<<20 {
		t.Errorf("Peak = %d", r8.Peak)
	}
	if !reflect.DeepEqual(observable(r1), observable(r8)) {
		t.Error("results differ between 1 and 8 workers")
	}
	want := map[string]kpack.Code{"k#0": kpack.DecompressionFailed, "k#1": kpack.Success, "k#2": kpack.OutOfMemory,
		"k#3": kpack.Success, "k#4": kpack.DecompressionFailed}
	for key, code := range want {
		if o := obj(r1, dk("a_gfx942.kpack", key, "gfx942")); o.Code != code {
			t.Errorf("%s = %+v, want %v", key, o, code)
		}
	}
}

// deep-window-bypass: a corrupt frame whose header declares no content size
// and a 2 GiB window, filed with original_size 256, is decoded in place
// (the output is the history) and fails, whatever the budget; it used to be
// skipped as "needs more than --deep-memory" and the run passed.
func TestVerifyHugeWindowSmallObjectDecoded(t *testing.T) {
	corrupt := append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8}, make([]byte, 200)...)
	for i := range 200 {
		corrupt[6+i] = byte(i)
	}
	co := codeobjtest.CodeObject("gfx942", "")
	good := zframe(-1, append(blockHeader(len(co), 0, true), co...))
	good[5] = 0xa8 // the same 2 GiB window on a frame that decodes fine
	b := load(t, map[string][]byte{"a_gfx942.kpack": zstdArchive([][]byte{corrupt, good}, []string{"gfx942"},
		map[string]map[string][2]uint64{"k#0": {"gfx942": {0, 256}}, "k#1": {"gfx942": {1, uint64(len(co))}}})})
	var res *verify.Result
	n := kpacktest.Allocated(func() { res = verify.Verify(b, verify.Options{Workers: 1, MaxMemory: 1 << 20}) })
	if o := obj(res, dk("a_gfx942.kpack", "k#0", "gfx942")); o.Code != kpack.DecompressionFailed || o.Skipped {
		t.Errorf("corrupt: %+v", o)
	}
	if o := obj(res, dk("a_gfx942.kpack", "k#1", "gfx942")); !o.OK() || o.Target != "gfx942" {
		t.Errorf("good: %+v", o)
	}
	if n > 4<<20 {
		t.Errorf("allocated %d", n)
	}
}

// deep-bysize-hang: one frame without a content size, filed by many TOC
// entries under distinct original_sizes, is decoded once to learn its
// length (plus once for the entry whose size matches), not once per size.
func TestVerifyManySizesOneFrameDecodedOnce(t *testing.T) {
	size := 64 << 20
	if testing.Short() {
		size = 8 << 20
	}
	frame := zframe(-1, rleBlocks(size, 0)...)
	entries := map[string]map[string][2]uint64{}
	for i := range 200 {
		entries[fmt.Sprintf("k#%d", i)] = map[string][2]uint64{"gfx942": {0, uint64(size - i)}}
	}
	entries["short#0"] = map[string][2]uint64{"gfx942": {0, uint64(size + 1)}}
	b := load(t, map[string][]byte{"a_gfx942.kpack": zstdArchive([][]byte{frame}, []string{"gfx942"}, entries)})
	for _, mem := range []int64{4 << 20, int64(size) * 4} { // streamed / decoded in place
		res := verify.Verify(b, verify.Options{Workers: 1, MaxMemory: mem})
		if o := obj(res, dk("a_gfx942.kpack", "k#0", "gfx942")); o.Code != kpack.Success || o.Size != uint64(size) {
			t.Errorf("budget %d: k#0 %+v", mem, o)
		}
		if o := obj(res, dk("a_gfx942.kpack", "k#7", "gfx942")); o.Code != kpack.DecompressionFailed || !strings.Contains(o.Err, "more than original_size") {
			t.Errorf("budget %d: k#7 %+v", mem, o)
		}
		if o := obj(res, dk("a_gfx942.kpack", "short#0", "gfx942")); o.Code != kpack.DecompressionFailed ||
			!strings.Contains(o.Err, fmt.Sprintf("decodes to %d bytes, original_size %d", size, size+1)) {
			t.Errorf("budget %d: short#0 %+v", mem, o)
		}
	}
}

// deep-none-blob-1g: a scheme none blob larger than the budget is streamed
// (hashed, its ELF header decoded), never read whole.
func TestVerifyLargeNoneBlobStreamed(t *testing.T) {
	const size = 48 << 20
	co := codeobjtest.CodeObject("gfx942", "")
	data := append(append([]byte(nil), co...), make([]byte, size-len(co))...)
	sum := sha256.Sum256(data)
	b := load(t, map[string][]byte{"a_gfx942.kpack": kpacktest.Build(kpacktest.Spec{Group: "a",
		Kernels: []kpacktest.Kernel{{Key: "k#0", Arch: "gfx942", Data: data}}})})
	data = nil
	var res *verify.Result
	n := kpacktest.Allocated(func() { res = verify.Verify(b, verify.Options{Workers: 1, MaxMemory: 4 << 20, HashAll: true}) })
	o := obj(res, dk("a_gfx942.kpack", "k#0", "gfx942"))
	if !o.OK() || o.Size != size || o.Sum != sum || o.Target != "gfx942" {
		t.Errorf("object %+v", o)
	}
	if n > 8<<20 || res.Peak > 4<<20 {
		t.Errorf("allocated %d, peak %d", n, res.Peak)
	}
}
