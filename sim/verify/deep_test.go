package verify_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// load writes files (name -> bytes) under a temp dir and loads the model.
func load(t testing.TB, files map[string][]byte) *model.Build {
	t.Helper()
	return loadDir(t, testtree.Write(t, files))
}

// loadDir loads the model of the tree in dir.
func loadDir(t testing.TB, dir string) *model.Build {
	t.Helper()
	tree, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tree.Close() }) // one os.Root per call: FuzzVerify ran out of descriptors
	return model.Load(tree)
}

// obj returns the verified object at k (the zero Object when there is none).
func obj(res *verify.Result, k verify.Key) verify.Object {
	o, _ := res.Object(k)
	return o
}

// zstdArchive assembles a zstd-per-kernel archive from raw frames, so
// tests can store frames no encoder writes. entries maps key -> arch ->
// {ordinal, original_size}.
func zstdArchive(frames [][]byte, arches []string, entries map[string]map[string][2]uint64) []byte {
	var blob bytes.Buffer
	_ = binary.Write(&blob, binary.LittleEndian, uint32(len(frames)))
	for _, f := range frames {
		_ = binary.Write(&blob, binary.LittleEndian, uint32(len(f)))
		blob.Write(f)
	}
	toc := map[string]any{}
	for key, m := range entries {
		am := map[string]any{}
		for arch, e := range m {
			am[arch] = map[string]any{"type": "hsaco", "ordinal": e[0], "original_size": e[1]}
		}
		toc[key] = am
	}
	archAny := make([]any, len(arches))
	for i, a := range arches {
		archAny[i] = a
	}
	t := kpacktest.Msgpack(map[string]any{"format_version": 1, "group_name": "g", "gfx_arch_family": "f",
		"gfx_arches": archAny, "toc": toc, "compression_scheme": kpack.SchemeZstd,
		"zstd_offset": kpack.HeaderSize, "zstd_size": blob.Len()})
	var out bytes.Buffer
	out.WriteString(kpack.Magic)
	_ = binary.Write(&out, binary.LittleEndian, uint32(1))
	_ = binary.Write(&out, binary.LittleEndian, uint64(kpack.HeaderSize+blob.Len()))
	out.Write(make([]byte, kpack.HeaderSize-out.Len()))
	out.Write(blob.Bytes())
	out.Write(t)
	return out.Bytes()
}

// rawFrame is a zstd frame with one raw block holding data and, when fcs
// is non-zero, an 8-byte frame content size field claiming fcs bytes.
func rawFrame(data []byte, fcs uint64) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd}
	if fcs != 0 {
		f = append(f, 0xe0) // FCS flag 3 (8 bytes), single segment
		f = binary.LittleEndian.AppendUint64(f, fcs)
	} else {
		f = append(f, 0x00, 0x58) // no FCS, window descriptor
	}
	bh := uint32(len(data))<<3 | 1 // raw block, last
	f = append(f, byte(bh), byte(bh>>8), byte(bh>>16))
	return append(f, data...)
}

const (
	lib  = "lib/libtorch_hip.so#0"
	lib1 = "lib/libtorch_hip.so#1"
)

func TestVerifyZstd(t *testing.T) {
	co90a := codeobjtest.CodeObject("gfx90a:xnack-", "kernel a")
	co942 := codeobjtest.CodeObject("gfx942", "kernel b")
	generic := codeobjtest.CodeObject("gfx9-4-generic", "generic")
	notELF := []byte("this is not an ELF file at all, just text long enough to pass sixty-four bytes")
	x86 := codeobjtest.Header(62, 0, 0, 0, nil)
	hsaWrongOSABI := codeobjtest.Header(codeobjtest.EMAMDGPU, 0, codeobjtest.ABIV5, codeobjtest.Flags("gfx942"), nil)
	b := load(t, map[string][]byte{
		".kpack/torch_gfx90a:xnack-.kpack": kpacktest.Build(kpacktest.Spec{Group: "torch", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{
			{Key: lib, Arch: "gfx90a:xnack-", Data: co90a},
			{Key: lib1, Arch: "gfx90a:xnack-", Data: notELF},
			{Key: "bin/a#0", Arch: "gfx90a:xnack-", Data: x86},
			{Key: "bin/b#0", Arch: "gfx90a:xnack-", Data: hsaWrongOSABI},
		}}),
		".kpack/torch_gfx942.kpack": kpacktest.Build(kpacktest.Spec{Group: "torch", Kernels: []kpacktest.Kernel{
			{Key: lib, Arch: "gfx942", Data: co942},
			{Key: lib1, Arch: "gfx942", Data: generic},
		}}),
	})
	res := verify.Verify(b, verify.Options{Workers: 2, HashAll: true})
	const a, n = ".kpack/torch_gfx90a:xnack-.kpack", ".kpack/torch_gfx942.kpack"
	want := map[verify.Key]verify.Object{
		dk(a, lib, "gfx90a:xnack-"): {Code: kpack.Success, Target: "gfx90a:xnack-", Size: uint64(len(co90a)), Sum: sha256.Sum256(co90a), Hashed: true, Ordinal: 0},
		dk(n, lib, "gfx942"):        {Code: kpack.Success, Target: "gfx942", Size: uint64(len(co942)), Sum: sha256.Sum256(co942), Hashed: true, Ordinal: 0},
		dk(n, lib1, "gfx942"):       {Code: kpack.Success, Target: "gfx9-4-generic", Size: uint64(len(generic)), Sum: sha256.Sum256(generic), Hashed: true, Ordinal: 1},
	}
	for k, w := range want {
		if got := obj(res, k); !reflect.DeepEqual(got, w) {
			t.Errorf("%v = %+v\nwant %+v", k, got, w)
		}
	}
	errs := map[verify.Key]string{
		dk(a, lib1, "gfx90a:xnack-"):      "not an ELF file",
		dk(a, "bin/a#0", "gfx90a:xnack-"): "e_machine 62 (EM_X86_64), want 224",
		dk(a, "bin/b#0", "gfx90a:xnack-"): "EI_OSABI 0, want 64",
	}
	for k, msg := range errs {
		if o := obj(res, k); o.Code != kpack.Success || o.Target != "" || !strings.Contains(o.Err, msg) || o.OK() {
			t.Errorf("%v = %+v, want Err ~ %q", k, o, msg)
		}
	}
	if res.Len() != 6 || res.Archives != 2 || len(res.Problems) != 0 {
		t.Errorf("objects %d, archives %d, problems %v", res.Len(), res.Archives, res.Problems)
	}
	wantBytes := len(co90a) + len(co942) + len(generic) + len(notELF) + len(x86) + len(hsaWrongOSABI)
	if res.Bytes != int64(wantBytes) {
		t.Errorf("Bytes = %d, want %d", res.Bytes, wantBytes)
	}
}

func TestVerifyBrokenFrames(t *testing.T) {
	co := codeobjtest.CodeObject("gfx1100", strings.Repeat("x", 100))
	good := rawFrame(co, uint64(len(co)))
	corrupt := append([]byte(nil), good...)
	corrupt[13] = 0xff // block header: reserved block type
	truncated := good[:len(good)-40]
	terabyte := rawFrame(co, 1<<40)
	noFCS := rawFrame(co, 0)
	entries := map[string]map[string][2]uint64{
		"k#0": {"gfx1100": {0, uint64(len(co))}},
		"k#1": {"gfx1100": {1, uint64(len(co))}},
		"k#2": {"gfx1100": {2, uint64(len(co))}},
		"k#3": {"gfx1100": {3, uint64(len(co))}},
		"k#4": {"gfx1100": {3, 1 << 40}},                                          // claims 1 TB: refused before reading
		"k#5": {"gfx1100": {4, uint64(len(co))}},                                  // no FCS, decodes fine
		"k#6": {"gfx1100": {4, uint64(len(co)) - 1}},                              // no FCS, decodes to more than original_size
		"k#7": {"gfx1100": {9, uint64(len(co))}},                                  // ordinal outside the frame table
		"k#8": {"gfx1100": {0, uint64(len(co))}, "gfx1101": {0, uint64(len(co))}}, // shared ordinal
	}
	data := zstdArchive([][]byte{good, corrupt, truncated, terabyte, noFCS}, []string{"gfx1100", "gfx1101"}, entries)
	b := load(t, map[string][]byte{"g_gfx1100.kpack": data})
	if b.Archives[0].Info == nil {
		t.Fatal(b.Archives[0].Err)
	}
	res := verify.Verify(b, verify.Options{HashAll: true})
	wantCodes := map[string]kpack.Code{"k#0": kpack.Success, "k#1": kpack.DecompressionFailed, "k#2": kpack.DecompressionFailed,
		"k#3": kpack.DecompressionFailed, "k#4": kpack.OutOfMemory, "k#5": kpack.Success, "k#6": kpack.DecompressionFailed,
		"k#7": kpack.KernelNotFound, "k#8": kpack.Success}
	for key, code := range wantCodes {
		o := obj(res, dk("g_gfx1100.kpack", key, "gfx1100"))
		if o.Code != code {
			t.Errorf("%s: code %v (%s), want %v", key, o.Code, o.Err, code)
		}
		// The reference reader agrees on every entry.
		if _, ref := fetch(t, b.Archives[0], key, "gfx1100"); ref != o.Code {
			t.Errorf("%s: deep %v, kpack.Fetch %v", key, o.Code, ref)
		}
	}
	if o := obj(res, dk("g_gfx1100.kpack", "k#3", "gfx1100")); !strings.Contains(o.Err, "frame content size 1099511627776 != original_size") {
		t.Errorf("k#3: %s", o.Err)
	}
	if o := obj(res, dk("g_gfx1100.kpack", "k#8", "gfx1101")); o.Target != "gfx1100" || o.Sum != sha256.Sum256(co) {
		t.Errorf("k#8 gfx1101 = %+v", o)
	}
	ps := res.Problems["g_gfx1100.kpack"]
	if len(ps) != 4 {
		t.Fatalf("problems = %v", ps)
	}
	for _, p := range ps {
		if !strings.Contains(p.Msg, "DECOMPRESSION_FAILED") || p.Offset < kpack.HeaderSize {
			t.Errorf("problem %v", p)
		}
	}
}

func fetch(t *testing.T, a *model.Archive, key, arch string) ([]byte, kpack.Code) {
	r, err := a.Entry.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, code, _ := a.Info.Fetch(r, key, arch)
	return b, code
}

func TestVerifyNone(t *testing.T) {
	co := codeobjtest.CodeObject("gfx908:sramecc+:xnack-", "abc")
	spec := kpacktest.Spec{Group: "blas", Kernels: []kpacktest.Kernel{
		{Key: "lib/librocblas.so#0", Arch: "gfx908", Data: co},
		{Key: "lib/librocblas.so#1", Arch: "gfx908", Data: co},
	}}
	spec.Mutate = func(m map[string]any) {
		m["blobs"].([]any)[1].(map[string]any)["size"] = 1 << 20 // points past EOF
	}
	b := load(t, map[string][]byte{"blas_gfx908.kpack": kpacktest.Build(spec)})
	res := verify.Verify(b, verify.Options{Workers: 1})
	o0 := obj(res, dk("blas_gfx908.kpack", "lib/librocblas.so#0", "gfx908"))
	o1 := obj(res, dk("blas_gfx908.kpack", "lib/librocblas.so#1", "gfx908"))
	if !o0.OK() || o0.Target != "gfx908:sramecc+:xnack-" {
		t.Errorf("#0 = %+v", o0)
	}
	if o1.Code != kpack.IOError || !strings.Contains(o1.Err, "past end of file") {
		t.Errorf("#1 = %+v", o1)
	}
	if len(res.Problems) != 0 { // the past-EOF blob is an Open problem, not a deep one
		t.Errorf("problems = %v", res.Problems)
	}
	if got := res.Fetch(b.Archives[0], "lib/librocblas.so#1", "gfx908"); got != kpack.IOError {
		t.Errorf("Fetch = %v", got)
	}
	if got := res.Fetch(b.Archives[0], "lib/librocblas.so#9", "gfx908"); got != kpack.KernelNotFound {
		t.Errorf("Fetch fallback = %v", got)
	}
}

func TestVerifyDeterministicAndBounded(t *testing.T) {
	files := map[string][]byte{}
	for i, arch := range []string{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100"} {
		var ks []kpacktest.Kernel
		for j := range 20 {
			pad := strings.Repeat(string(rune('a'+j)), 1000*(i+1)+j)
			ks = append(ks, kpacktest.Kernel{Key: "lib/x.so#" + string(rune('0'+j%10)) + string(rune('0'+j/10)), Arch: arch, Data: codeobjtest.CodeObject(arch, pad)})
		}
		files[".kpack/x_"+arch+".kpack"] = kpacktest.Build(kpacktest.Spec{Group: "x", Scheme: kpack.SchemeZstd, Kernels: ks})
	}
	b := load(t, files)
	one := verify.Verify(b, verify.Options{Workers: 1})
	many := verify.Verify(b, verify.Options{Workers: 8, MaxMemory: 10000})
	if many.Peak > 10000 || many.Peak == 0 {
		t.Errorf("Peak = %d, want (0, 10000]", many.Peak)
	}
	if !reflect.DeepEqual(observable(one), observable(many)) {
		t.Error("results differ between 1 and 8 workers")
	}
	if one.Len() != 160 {
		t.Errorf("objects = %d", one.Len())
	}
	for _, k := range one.Sorted() {
		if o := obj(one, k); !o.OK() {
			t.Errorf("%v = %+v", k, o)
		}
	}
	var buf bytes.Buffer
	verify.Verify(b, verify.Options{Progress: &buf})
	if !strings.Contains(buf.String(), "/8 archives") || !strings.Contains(buf.String(), "B/s") { // kB/s, MB/s or GB/s, as fast as the machine
		t.Errorf("progress output %q", buf.String())
	}
}

func dk(archive, kernel, arch string) verify.Key {
	return verify.Key{Archive: archive, Kernel: kernel, Arch: arch}
}

// FuzzVerify checks that Verify never panics on hostile archives and agrees
// with kpack.Archive.Fetch, the reference reader, on every entry's code.
func FuzzVerify(f *testing.F) {
	co := codeobjtest.CodeObject("gfx942", "seed")
	f.Add(kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{
		{Key: "k#0", Arch: "gfx942", Data: co}, {Key: "k#1", Arch: "gfx942", Data: co[:40]}}}))
	f.Add(kpacktest.Build(kpacktest.Spec{Group: "g", Kernels: []kpacktest.Kernel{{Key: "k#0", Arch: "gfx942", Data: co}}}))
	f.Add(zstdArchive([][]byte{rawFrame(co, 1<<40)}, []string{"gfx942"}, map[string]map[string][2]uint64{"k#0": {"gfx942": {0, uint64(len(co))}}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		timer := time.AfterFunc(5*time.Second, func() { panic("Verify takes over 5s") })
		defer timer.Stop()
		b := load(t, map[string][]byte{"g_gfx942.kpack": data})
		a := b.Archives[0]
		res := verify.Verify(b, verify.Options{Workers: 2, MaxMemory: 1 << 20})
		if err := res.Unopened[a.Path]; a.Info == nil || err != nil {
			if res.Len() != 0 {
				t.Fatalf("objects for an archive that does not open")
			}
			if a.Info != nil {
				// The chain walk kpack_open makes fails: so does every fetch.
				for _, key := range a.Info.KernelKeys() {
					for _, arch := range a.Info.KernelArches(key) {
						if _, code := fetch(t, a, key, arch); code == kpack.Success {
							t.Fatalf("%s@%s: deep says the archive does not open (%v), kpack.Fetch succeeds", key, arch, err)
						}
					}
				}
			}
			return
		}
		for _, key := range a.Info.KernelKeys() {
			for _, arch := range a.Info.KernelArches(key) {
				o := obj(res, dk(a.Path, key, arch))
				if _, ref := fetch(t, a, key, arch); ref != o.Code {
					t.Fatalf("%s@%s: deep %v (%s), kpack.Fetch %v", key, arch, o.Code, o.Err, ref)
				}
			}
		}
	})
}

// One worker with a budget smaller than any object moves from a zstd
// archive (whose output buffer holds the whole budget) to a none archive
// without waiting on itself.
func TestVerifyTinyBudgetMixedSchemes(t *testing.T) {
	big := codeobjtest.CodeObject("gfx1100", strings.Repeat("b", 5000))
	b := load(t, map[string][]byte{
		"a_gfx1100.kpack": kpacktest.Build(kpacktest.Spec{Group: "a", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{{Key: "k#0", Arch: "gfx1100", Data: big}}}),
		"b_gfx1100.kpack": kpacktest.Build(kpacktest.Spec{Group: "b", Kernels: []kpacktest.Kernel{{Key: "k#0", Arch: "gfx1100", Data: big}}}),
		"c_gfx1100.kpack": kpacktest.Build(kpacktest.Spec{Group: "c", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{{Key: "k#0", Arch: "gfx1100", Data: big}}}),
	})
	done := make(chan *verify.Result)
	go func() { done <- verify.Verify(b, verify.Options{Workers: 1, MaxMemory: 100}) }()
	select {
	case res := <-done:
		if res.Len() != 3 || res.Peak != 100 {
			t.Errorf("objects %d, peak %d", res.Len(), res.Peak)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Verify deadlocked")
	}
}

// TestVerifyArchiveShrinks: an archive that gets shorter after it was
// opened (another process rewriting it) is read through a mapping whose
// end is gone: the fault becomes an I/O error for the archive or its
// objects, never a crash.
func TestVerifyArchiveShrinks(t *testing.T) {
	ks := codeobjtest.NoiseKernels(1, 64, 64<<10, "gfx942") // a 4 MiB blob, several reads
	p, b := loadOnDisk(t, ks)
	if err := os.Truncate(p, 200); err != nil { // the header and a little of the blob
		t.Fatal(err)
	}
	res := verify.Verify(b, verify.Options{Workers: 2})
	failed := 0
	for i := range ks {
		if o := obj(res, dk(".kpack/g_gfx942.kpack", ks[i].Key, "gfx942")); o.Code == kpack.IOError {
			failed++
		}
	}
	if err := res.Unopened[".kpack/g_gfx942.kpack"]; failed == 0 && err == nil {
		t.Fatalf("a truncated archive verified without an error: %+v, %d objects", obj(res, dk(".kpack/g_gfx942.kpack", ks[0].Key, "gfx942")), res.Len())
	} else if err != nil && !strings.Contains(err.Error(), "IO_ERROR") {
		t.Errorf("error %v, want IO_ERROR", err)
	}
}

// TestVerifyArchiveShrinksInPage: an archive that loses its last few
// bytes after it was opened, but not a whole page, reads zeros past its
// new end through a mapping (no fault): the read must still fail with
// IO_ERROR, as read(2) would, not verify zeros.
func TestVerifyArchiveShrinksInPage(t *testing.T) {
	ks := codeobjtest.NoiseKernels(5, 4, 16<<10, "gfx942")
	p, b := loadOnDisk(t, ks)
	info := b.Archives[0].Info
	end := int64(info.ZstdOffset + info.ZstdSize) // the blob's end: cut into the last frame
	if err := os.Truncate(p, end-8); err != nil {
		t.Fatal(err)
	}
	res := verify.Verify(b, verify.Options{Workers: 2})
	last := obj(res, dk(".kpack/g_gfx942.kpack", ks[len(ks)-1].Key, "gfx942"))
	if err := res.Unopened[".kpack/g_gfx942.kpack"]; last.Code != kpack.IOError && err == nil {
		t.Fatalf("an archive cut short by 8 bytes: last object %v %s, unopened %v; want IO_ERROR", last.Code, last.Err, err)
	}
}

// loadOnDisk writes ks as the zstd archive .kpack/g_gfx942.kpack of a
// temporary folder and loads it; it returns the archive's path.
func loadOnDisk(t *testing.T, ks []kpacktest.Kernel) (string, *model.Build) {
	t.Helper()
	const name = ".kpack/g_gfx942.kpack"
	dir := testtree.Write(t, map[string][]byte{name: kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: ks})})
	return filepath.Join(dir, filepath.FromSlash(name)), loadDir(t, dir)
}

// observable is what a Result tells through its API (every object by key,
// the problems, the archives that do not open, the counters except Peak):
// what two runs of Verify must agree on.
func observable(r *verify.Result) any {
	type item struct {
		K verify.Key
		O verify.Object
	}
	var objs []item
	for _, k := range r.Sorted() {
		o, _ := r.Object(k)
		objs = append(objs, item{k, o})
	}
	return struct {
		Objects          []item
		Problems         map[string][]kpack.Problem
		Unopened         map[string]error
		Bytes, Read      int64
		Archives, Length int
	}{objs, r.Problems, r.Unopened, r.Bytes, r.Read, r.Archives, r.Len()}
}

// Hard links of one archive share its parsed TOC (model reads the file
// once): --deep verifies the bytes once and gives every path the verdict
// (run with -race: no two workers scan one kpack.Archive).
func TestVerifyHardLinksOnce(t *testing.T) {
	co := codeobjtest.CodeObject("gfx1100", strings.Repeat("x", 100))
	good := rawFrame(co, uint64(len(co)))
	corrupt := append([]byte(nil), good...)
	corrupt[13] = 0xff
	entries := map[string]map[string][2]uint64{"k#0": {"gfx1100": {0, uint64(len(co))}}, "k#1": {"gfx1100": {1, uint64(len(co))}}}
	dir := testtree.Write(t, map[string][]byte{"g_gfx1100.kpack": zstdArchive([][]byte{good, corrupt}, []string{"gfx1100"}, entries)})
	for _, n := range []string{"h_gfx1100.kpack", "i_gfx1100.kpack"} {
		if err := os.Link(filepath.Join(dir, "g_gfx1100.kpack"), filepath.Join(dir, n)); err != nil {
			t.Skipf("no hard links: %v", err)
		}
	}
	b := loadDir(t, dir)
	if len(b.Archives) != 3 || b.Archives[0].Info != b.Archives[2].Info {
		t.Fatalf("%d archives, TOC not shared", len(b.Archives))
	}
	res := verify.Verify(b, verify.Options{Workers: 2})
	if res.Archives != 1 {
		t.Errorf("verified %d archives, want 1", res.Archives)
	}
	for _, p := range []string{"g_gfx1100.kpack", "h_gfx1100.kpack", "i_gfx1100.kpack"} {
		if o := obj(res, dk(p, "k#1", "gfx1100")); o.Code != kpack.DecompressionFailed {
			t.Errorf("%s k#1: %v", p, o.Code)
		}
		if o := obj(res, dk(p, "k#0", "gfx1100")); o.Code != kpack.Success {
			t.Errorf("%s k#0: %v", p, o.Code)
		}
		if len(res.Problems[p]) != 1 {
			t.Errorf("%s problems %v", p, res.Problems[p])
		}
	}
}
