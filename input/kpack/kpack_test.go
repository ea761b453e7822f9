package kpack_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
)

// countingReader counts the bytes ReadAt returns.
type countingReader struct {
	r     io.ReaderAt
	n     int64
	calls int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	c.calls++
	return n, err
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func open(t testing.TB, b []byte) *kpack.Archive {
	t.Helper()
	a, err := kpack.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return a
}

func rep(s string, n int) []byte { return bytes.Repeat([]byte(s), n) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// Kernels of runtime/tests/generate_test_data.py in rocm-kpack.
var (
	noopKernels = []kpacktest.Kernel{
		{Key: "lib/libtest.so#0", Arch: "gfx900", Data: cat([]byte("KERNEL1_GFX900_DATA"), rep("\x00", 100))},
		{Key: "lib/libtest.so#0", Arch: "gfx906", Data: cat([]byte("KERNEL2_GFX906_DATA"), rep("\x00", 200))},
		{Key: "bin/testapp#0", Arch: "gfx900", Data: cat([]byte("KERNEL3_APP_GFX900"), rep("\xff", 150))},
	}
	zstdKernels = []kpacktest.Kernel{
		{Key: "lib/libhip.so#0", Arch: "gfx1100", Data: cat([]byte("HIP_KERNEL_GFX1100_"), rep("A", 500), rep("B", 500))},
		{Key: "lib/libhip.so#0", Arch: "gfx1101", Data: cat([]byte("HIP_KERNEL_GFX1101_"), rep("X", 300), rep("Y", 300))},
		{Key: "bin/hiptest#0", Arch: "gfx1100", Data: cat([]byte("TEST_APP_KERNEL___"), rep("\x42", 1000))},
	}
	noopSpec = kpacktest.Spec{Group: "test", Family: "gfx900X", Arches: []string{"gfx900", "gfx906"},
		Scheme: kpack.SchemeNone, Kernels: noopKernels}
	zstdSpec = kpacktest.Spec{Group: "test", Family: "gfx110X", Arches: []string{"gfx1100", "gfx1101"},
		Scheme: kpack.SchemeZstd, Kernels: zstdKernels}
)

func TestOpenUpstreamFixtures(t *testing.T) {
	tests := []struct {
		file      string
		kernels   []kpacktest.Kernel
		scheme    string
		wantRead  int64
		tocOffset uint64
	}{
		// header + TOC (903-570 bytes), no blob data.
		{"test_noop.kpack", noopKernels, kpack.SchemeNone, 64 + (903 - 570), 570},
		// header + TOC (518-198) + frame count + 3 size prefixes.
		{"test_zstd.kpack", zstdKernels, kpack.SchemeZstd, 64 + (518 - 198) + 4 + 3*4, 198},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b := readTestdata(t, tt.file)
			cr := &countingReader{r: bytes.NewReader(b)}
			a, err := kpack.Open(cr, int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if cr.n != tt.wantRead {
				t.Errorf("Open read %d bytes, want %d", cr.n, tt.wantRead)
			}
			if a.TOCOffset != tt.tocOffset || a.Scheme != tt.scheme || a.GroupName != "test" || a.FormatVersion != 1 {
				t.Errorf("header/TOC = %+v", a)
			}
			if len(a.Problems) != 0 {
				t.Errorf("Problems = %v", a.Problems)
			}
			for _, k := range tt.kernels {
				got, code, err := a.Fetch(bytes.NewReader(b), k.Key, k.Arch)
				if code != kpack.Success || err != nil || !bytes.Equal(got, k.Data) {
					t.Errorf("Fetch(%s, %s) = %d bytes, %v, %v", k.Key, k.Arch, len(got), code, err)
				}
			}
			if _, code, _ := a.Fetch(bytes.NewReader(b), "bin/testapp#0", "gfx906"); code != kpack.KernelNotFound {
				t.Errorf("missing kernel: code %v", code)
			}
			res := a.Verify(bytes.NewReader(b), kpack.VerifyOptions{})
			if len(res.Failures) != 0 || len(res.Problems) != 0 || res.Kernels != 3 {
				t.Errorf("Verify = %+v", res)
			}
		})
	}
}

func TestBuildMatchesUpstreamNoop(t *testing.T) {
	want := readTestdata(t, "test_noop.kpack")
	if got := kpacktest.Build(noopSpec); !bytes.Equal(got, want) {
		t.Errorf("Build differs from upstream writer:\n got %x\nwant %x", got, want)
	}
}

func TestBuildMatchesUpstreamZstdStructure(t *testing.T) {
	up := readTestdata(t, "test_zstd.kpack")
	ours := kpacktest.Build(zstdSpec)
	a, b := open(t, up), open(t, ours)
	if !reflect.DeepEqual(a.Kernels, b.Kernels) || !reflect.DeepEqual(a.Arches, b.Arches) ||
		a.FrameCount != b.FrameCount || a.ZstdOffset != b.ZstdOffset || len(b.Problems) != 0 {
		t.Errorf("structure differs:\nupstream %+v\nours     %+v", a, b)
	}
	// The TOC bytes match except for zstd_size (frames come from another encoder).
	tocUp, tocOurs := up[a.TOCOffset:], ours[b.TOCOffset:]
	i := bytes.Index(tocUp, []byte("\xa9zstd_size"))
	if i < 0 || !bytes.Equal(tocUp[:i], tocOurs[:i]) {
		t.Errorf("TOC prefix differs:\n got %x\nwant %x", tocOurs, tocUp)
	}
}

func TestScenarioFixtures(t *testing.T) {
	for _, name := range []string{"fft_test_gfx950.kpack", "fft_test_gfx950_xnack+.kpack", "torch_gfx90a.kpack"} {
		t.Run(name, func(t *testing.T) {
			b := readTestdata(t, name)
			a := open(t, b)
			if len(a.Kernels) == 0 || len(a.Arches) == 0 {
				t.Errorf("empty archive: %+v", a)
			}
			for _, p := range a.Problems {
				t.Logf("problem: %v", p)
			}
			res := a.Verify(bytes.NewReader(b), kpack.VerifyOptions{})
			if len(res.Failures) != 0 {
				t.Errorf("Verify failures: %+v", res.Failures)
			}
		})
	}
}

func header(version uint32, tocOffset uint64) []byte {
	h := make([]byte, kpack.HeaderSize)
	copy(h, kpack.Magic)
	h[4] = byte(version)
	for i := 0; i < 8; i++ {
		h[8+i] = byte(tocOffset >> (8 * i))
	}
	return h
}

// withTOC replaces the TOC of an archive built by kpacktest with raw bytes.
func withTOC(b []byte, toc []byte) []byte {
	off := uint64(0)
	for i := 7; i >= 0; i-- {
		off = off<<8 | uint64(b[8+i])
	}
	return cat(b[:off], toc)
}

func mutate(s kpacktest.Spec, f func(toc map[string]any)) []byte {
	s.Mutate = f
	return kpacktest.Build(s)
}

func u32le(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

// zstdBlob builds an archive whose zstd blob is raw, with zstd_size size.
func zstdBlob(blob []byte, size uint64) []byte {
	toc := kpacktest.Msgpack(map[string]any{"compression_scheme": kpack.SchemeZstd,
		"zstd_offset": kpack.HeaderSize, "zstd_size": size, "gfx_arches": []string{}, "toc": map[string]any{}})
	return cat(header(1, uint64(kpack.HeaderSize+len(blob))), blob, toc)
}

func TestOpenFormatErrors(t *testing.T) {
	good := kpacktest.Build(noopSpec)
	tests := []struct {
		name     string
		in       []byte
		code     kpack.Code
		field    string
		sentinel error
	}{
		{"empty", nil, kpack.InvalidFormat, "header", kpack.ErrBadMagic},
		{"short header", []byte("KPAK\x01\x00"), kpack.InvalidFormat, "header", kpack.ErrBadMagic},
		{"bad magic", cat([]byte("KPAX"), good[4:]), kpack.InvalidFormat, "header.magic", kpack.ErrBadMagic},
		{"version 2", cat(good[:4], []byte{2}, good[5:]), kpack.UnsupportedVersion, "header.version", kpack.ErrVersion},
		{"toc at EOF", cat(header(1, 64)), kpack.InvalidFormat, "header.toc_offset", kpack.ErrTOCOffset},
		{"toc past EOF", cat(header(1, 1<<40), []byte{0x80}), kpack.InvalidFormat, "header.toc_offset", kpack.ErrTOCOffset},
		{"toc truncated", good[:len(good)-3], kpack.MsgpackParseFailed, "toc", kpack.ErrTOCParse},
		{"toc reserved byte", withTOC(good, []byte{0xc1}), kpack.MsgpackParseFailed, "toc", kpack.ErrTOCParse},
		{"toc not a map", withTOC(good, kpacktest.Msgpack([]any{1, 2})), kpack.MsgpackParseFailed, "toc", kpack.ErrTOCParse},
		{"huge declared array", withTOC(good, []byte{0xdd, 0xff, 0xff, 0xff, 0xff}), kpack.MsgpackParseFailed, "toc", kpack.ErrTOCParse},
		{"zstd_size over 4 GiB", mutate(zstdSpec, func(m map[string]any) { m["zstd_size"] = uint64(5 << 30) }),
			kpack.InvalidFormat, "zstd_size", kpack.ErrZstdIndex},
		{"zstd blob past EOF", mutate(zstdSpec, func(m map[string]any) { m["zstd_offset"] = 100000 }),
			kpack.IOError, "zstd_size", kpack.ErrZstdIndex},
		{"zstd blob under 4 bytes", zstdBlob([]byte{0, 0, 0}, 3), kpack.InvalidFormat, "zstd_size", kpack.ErrZstdIndex},
		{"zstd absent sizes", withTOC(good, kpacktest.Msgpack(map[string]any{"compression_scheme": kpack.SchemeZstd})),
			kpack.InvalidFormat, "zstd_size", kpack.ErrZstdIndex},
		{"frame count over runtime limit", zstdBlob(cat(u32le(1<<20+1), make([]byte, 60)), 64),
			kpack.InvalidFormat, "zstd.count", kpack.ErrZstdIndex},
		{"frame count does not fit", zstdBlob(cat(u32le(1000), make([]byte, 60)), 64),
			kpack.InvalidFormat, "zstd.count", kpack.ErrZstdIndex},
		{"frame runs past blob", zstdBlob(cat(u32le(2), u32le(4), []byte("abcd"), u32le(9), []byte("xyz")), 19),
			kpack.InvalidFormat, "zstd.frames[1]", kpack.ErrZstdIndex},
		{"zstd_size shorter than frames", mutate(zstdSpec, func(m map[string]any) { m["zstd_size"] = m["zstd_size"].(int) - 1 }),
			kpack.InvalidFormat, "zstd.frames[2]", kpack.ErrZstdIndex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe, err := openFailure(t, tt.in)
			if fe.Code != tt.code || fe.Field != tt.field || !errors.Is(err, tt.sentinel) || fe.Msg == "" {
				t.Errorf("got %v (code %v, field %q), want code %v field %q sentinel %v", err, fe.Code, fe.Field, tt.code, tt.field, tt.sentinel)
			}
		})
	}
}

// TestOpenConversionFaults: a TOC value the runtime converts at open and
// cannot fails the fixed runtime's kpack_open (MSGPACK_PARSE_FAILED) and
// aborts the legacy runtime (SPEC 1; toc_parser.cpp).
func TestOpenConversionFaults(t *testing.T) {
	const lib = "lib/libtest.so#0"
	tests := []struct {
		name  string
		in    []byte
		field string
		msg   string
	}{
		{"ordinal string", mutate(noopSpec, setEntry(lib, "gfx900", "ordinal", "0")), "toc[lib/libtest.so#0][gfx900].ordinal", "is a string"},
		{"ordinal negative", mutate(noopSpec, setEntry(lib, "gfx900", "ordinal", -1)), "toc[lib/libtest.so#0][gfx900].ordinal", "negative integer"},
		{"ordinal over u32", mutate(noopSpec, setEntry(lib, "gfx900", "ordinal", uint64(1<<32))), "toc[lib/libtest.so#0][gfx900].ordinal", "does not fit in u32"},
		{"ordinal float", mutate(noopSpec, setEntry(lib, "gfx900", "ordinal", 1.5)), "toc[lib/libtest.so#0][gfx900].ordinal", "is a float"},
		{"original_size string", mutate(noopSpec, setEntry(lib, "gfx906", "original_size", "219")), "toc[lib/libtest.so#0][gfx906].original_size", "is a string"},
		{"blob offset string", mutate(noopSpec, setBlob(0, "offset", "64")), "blobs[0].offset", "is a string"},
		{"zstd_offset string", mutate(zstdSpec, func(m map[string]any) { m["zstd_offset"] = "64" }), "zstd_offset", "is a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe, err := openFailure(t, tt.in)
			if fe.Code != kpack.MsgpackParseFailed || fe.Field != tt.field || !fe.LegacyAborts ||
				!errors.Is(err, kpack.ErrTOCParse) || !strings.Contains(fe.Msg, tt.msg) {
				t.Errorf("got %v (code %v, field %q, legacy aborts %v), want MSGPACK_PARSE_FAILED at %q with %q, legacy aborts",
					err, fe.Code, fe.Field, fe.LegacyAborts, tt.field, tt.msg)
			}
		})
	}
}

// openFailure opens in and returns the *FormatError it must fail with.
func openFailure(t *testing.T, in []byte) (*kpack.FormatError, error) {
	t.Helper()
	_, err := kpack.Open(bytes.NewReader(in), int64(len(in)))
	var fe *kpack.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("Open error = %v, want *FormatError", err)
	}
	return fe, err
}

func TestOpenLimit(t *testing.T) {
	b := kpacktest.Build(noopSpec)
	_, err := kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), kpack.Options{MaxTOCSize: 100})
	if !errors.Is(err, kpack.ErrLimit) {
		t.Errorf("err = %v, want ErrLimit", err)
	}
}

func setEntry(key, arch, field string, v any) func(map[string]any) {
	return func(m map[string]any) {
		m["toc"].(map[string]any)[key].(map[string]any)[arch].(map[string]any)[field] = v
	}
}

func delEntry(key, arch, field string) func(map[string]any) {
	return func(m map[string]any) {
		delete(m["toc"].(map[string]any)[key].(map[string]any)[arch].(map[string]any), field)
	}
}

func setBlob(i int, field string, v any) func(map[string]any) {
	return func(m map[string]any) { m["blobs"].([]any)[i].(map[string]any)[field] = v }
}

type fetchWant struct {
	key, arch string
	code      kpack.Code
}

func TestOpenProblems(t *testing.T) {
	const lib = "lib/libtest.so#0"
	tests := []struct {
		name  string
		spec  kpacktest.Spec
		edit  func(map[string]any)
		kind  kpack.ProblemKind
		field string
		msg   string
		fetch fetchWant
	}{
		{"ordinal absent", noopSpec, delEntry(lib, "gfx900", "ordinal"), kpack.ProblemMalformed,
			"toc[lib/libtest.so#0][gfx900].ordinal", "uninitialised", fetchWant{lib, "gfx900", kpack.KernelNotFound}},
		{"original_size huge", zstdSpec, setEntry("lib/libhip.so#0", "gfx1100", "original_size", uint64(1<<40)), kpack.ProblemMalformed,
			"toc[lib/libhip.so#0][gfx1100].original_size", "exceeds 4 GiB", fetchWant{"lib/libhip.so#0", "gfx1100", kpack.OutOfMemory}},
		{"type not hsaco", noopSpec, setEntry(lib, "gfx900", "type", "elf"), kpack.ProblemMalformed,
			"toc[lib/libtest.so#0][gfx900].type", `type "elf"`, fetchWant{lib, "gfx900", kpack.Success}},
		{"ordinal outside blobs", noopSpec, setEntry(lib, "gfx900", "ordinal", 7), kpack.ProblemMalformed,
			"toc[lib/libtest.so#0][gfx900].ordinal", "outside the blobs table (3 items)", fetchWant{lib, "gfx900", kpack.KernelNotFound}},
		{"ordinal outside frames", zstdSpec, setEntry("bin/hiptest#0", "gfx1100", "ordinal", 3), kpack.ProblemMalformed,
			"toc[bin/hiptest#0][gfx1100].ordinal", "outside the zstd frame table (3 items)", fetchWant{"bin/hiptest#0", "gfx1100", kpack.KernelNotFound}},
		{"blob past EOF", noopSpec, setBlob(1, "size", 5000), kpack.ProblemMalformed,
			"blobs[1]", "runs past end of file", fetchWant{lib, "gfx906", kpack.IOError}},
		{"blob size huge", noopSpec, setBlob(1, "size", uint64(5<<30)), kpack.ProblemMalformed,
			"blobs[1].size", "exceeds 4 GiB", fetchWant{lib, "gfx906", kpack.OutOfMemory}},
		{"blob size near 2^62", noopSpec, setBlob(1, "size", uint64(1<<62)), kpack.ProblemMalformed,
			"blobs[1].size", "exceeds 4 GiB", fetchWant{lib, "gfx906", kpack.Abort}},
		{"original_size near 2^62", zstdSpec, setEntry("lib/libhip.so#0", "gfx1100", "original_size", uint64(1<<62)), kpack.ProblemMalformed,
			"toc[lib/libhip.so#0][gfx1100].original_size", "exceeds 4 GiB", fetchWant{"lib/libhip.so#0", "gfx1100", kpack.Abort}},
		{"blob item not a map", noopSpec, func(m map[string]any) { m["blobs"] = append([]any{"x"}, m["blobs"].([]any)...) },
			kpack.ProblemMalformed, "blobs[0]", "shifting later ordinals", fetchWant{lib, "gfx900", kpack.Success}},
		{"unknown scheme", noopSpec, func(m map[string]any) { m["compression_scheme"] = "lz4"; delete(m, "blobs") },
			kpack.ProblemMalformed, "compression_scheme", `unknown compression_scheme "lz4"`, fetchWant{lib, "gfx900", kpack.KernelNotFound}},
		{"unknown scheme no blobs", noopSpec, func(m map[string]any) { m["compression_scheme"] = "lz4"; delete(m, "blobs") },
			kpack.ProblemMalformed, "blobs", "every fetch gives KERNEL_NOT_FOUND", fetchWant{lib, "gfx906", kpack.KernelNotFound}},
		{"absent scheme with blobs", noopSpec, func(m map[string]any) { delete(m, "compression_scheme") },
			kpack.ProblemMalformed, "compression_scheme", "is absent", fetchWant{lib, "gfx900", kpack.Success}},
		{"zstd scheme as none", zstdSpec, func(m map[string]any) { m["compression_scheme"] = "zstd" },
			kpack.ProblemMalformed, "blobs", "no blobs table", fetchWant{"lib/libhip.so#0", "gfx1100", kpack.KernelNotFound}},
		{"toc arch not declared", noopSpec, func(m map[string]any) { m["gfx_arches"] = []any{"gfx900"} },
			kpack.ProblemMalformed, "toc[*][gfx906]", "not in gfx_arches", fetchWant{lib, "gfx906", kpack.Success}},
		{"declared arch without entries", noopSpec, func(m map[string]any) { m["gfx_arches"] = []any{"gfx900", "gfx906", "gfx90a"} },
			kpack.ProblemMalformed, "gfx_arches[2]", "no kernel entries", fetchWant{lib, "gfx90a", kpack.KernelNotFound}},
		{"arch with triple", noopSpec, func(m map[string]any) { m["gfx_arches"] = []any{"gfx900", "gfx906", "amdgcn-amd-amdhsa--gfx906"} },
			kpack.ProblemTarget, "gfx_arches[2]", "triple prefix", fetchWant{lib, "gfx906", kpack.Success}},
		{"arch listed twice", noopSpec, func(m map[string]any) { m["gfx_arches"] = []any{"gfx900", "gfx906", "gfx900"} },
			kpack.ProblemTarget, "gfx_arches[2]", "listed twice", fetchWant{lib, "gfx900", kpack.Success}},
		{"gfx_arches item not string", noopSpec, func(m map[string]any) { m["gfx_arches"] = []any{"gfx900", "gfx906", 3} },
			kpack.ProblemMalformed, "gfx_arches[2]", "the runtime skips it", fetchWant{lib, "gfx900", kpack.Success}},
		{"gfx_arches absent", noopSpec, func(m map[string]any) { delete(m, "gfx_arches") },
			kpack.ProblemMalformed, "gfx_arches", "never selects this archive", fetchWant{lib, "gfx900", kpack.Success}},
		{"key without co_index", noopSpec, func(m map[string]any) {
			toc := m["toc"].(map[string]any)
			toc["bin/testapp"] = toc["bin/testapp#0"]
			delete(toc, "bin/testapp#0")
		}, kpack.ProblemMalformed, "toc[bin/testapp]", "no #<co_index> suffix", fetchWant{"bin/testapp", "gfx900", kpack.Success}},
		{"toc not a map", noopSpec, func(m map[string]any) { m["toc"] = []any{} },
			kpack.ProblemMalformed, "toc", "serves no kernels", fetchWant{lib, "gfx900", kpack.KernelNotFound}},
		{"arch entry not a map", noopSpec, func(m map[string]any) { m["toc"].(map[string]any)[lib].(map[string]any)["gfx900"] = 0 },
			kpack.ProblemMalformed, "toc[lib/libtest.so#0][gfx900]", "not a map", fetchWant{lib, "gfx900", kpack.KernelNotFound}},
		{"format_version 2", noopSpec, func(m map[string]any) { m["format_version"] = 2 },
			kpack.ProblemMalformed, "format_version", "format_version 2, want 1", fetchWant{lib, "gfx900", kpack.Success}},
		{"group_name absent", noopSpec, func(m map[string]any) { delete(m, "group_name") },
			kpack.ProblemMalformed, "group_name", "is absent", fetchWant{lib, "gfx900", kpack.Success}},
		{"deep metadata", noopSpec, setEntry(lib, "gfx900", "metadata", kpacktest.RawMsgpack(cat(rep("\x91", 1<<20), []byte{0xc0}))),
			kpack.ProblemMalformed, "", "", fetchWant{lib, "gfx900", kpack.Success}},
		{"duplicate ordinals are fine", noopSpec, setEntry("bin/testapp#0", "gfx900", "ordinal", 0),
			kpack.ProblemMalformed, "", "", fetchWant{"bin/testapp#0", "gfx900", kpack.Success}},
		{"zstd bomb", zstdSpec, setEntry("bin/hiptest#0", "gfx1100", "original_size", 10),
			kpack.ProblemMalformed, "", "", fetchWant{"bin/hiptest#0", "gfx1100", kpack.DecompressionFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mutate(tt.spec, tt.edit)
			a := open(t, b)
			checkProblem(t, a.Problems, tt.kind, tt.field, tt.msg)
			if !sort.SliceIsSorted(a.Problems, func(i, j int) bool {
				pi, pj := a.Problems[i], a.Problems[j]
				return pi.Offset < pj.Offset || pi.Offset == pj.Offset && pi.Field < pj.Field
			}) {
				t.Errorf("problems not sorted: %v", a.Problems)
			}
			_, code, err := a.Fetch(bytes.NewReader(b), tt.fetch.key, tt.fetch.arch)
			if code != tt.fetch.code || (err == nil) != (code == kpack.Success) {
				t.Errorf("Fetch(%s, %s) = %v, %v; want %v", tt.fetch.key, tt.fetch.arch, code, err, tt.fetch.code)
			}
			a.Verify(bytes.NewReader(b), kpack.VerifyOptions{}) // must not panic
		})
	}
}

// checkProblem asserts one problem matches field and msg; an empty field
// asserts there are no problems.
func checkProblem(t *testing.T, ps []kpack.Problem, kind kpack.ProblemKind, field, msg string) {
	t.Helper()
	if field == "" {
		if len(ps) != 0 {
			t.Errorf("unexpected problems: %v", ps)
		}
		return
	}
	for _, p := range ps {
		if p.Kind == kind && p.Field == field && strings.Contains(p.Msg, msg) && p.Offset > 0 {
			return
		}
	}
	t.Errorf("no %v problem %q ~ %q in %v", kind, field, msg, ps)
}

func TestTOCOffsetInsideHeader(t *testing.T) {
	toc := kpacktest.Msgpack(map[string]any{"compression_scheme": "none", "blobs": []any{}, "gfx_arches": []any{},
		"toc": map[string]any{}, "format_version": 1, "group_name": "g", "gfx_arch_family": "f"})
	b := cat(header(1, 16)[:16], toc)
	a := open(t, b)
	checkProblem(t, a.Problems, kpack.ProblemMalformed, "header.toc_offset", "inside the 64-byte header")
}

func TestTrailingBytesAfterTOC(t *testing.T) {
	b := cat(kpacktest.Build(noopSpec), []byte{0xc1, 0xff, 0x00})
	if a := open(t, b); len(a.Problems) != 0 {
		t.Errorf("problems: %v", a.Problems)
	}
}

func TestZstdTrailingBytes(t *testing.T) {
	b := mutate(zstdSpec, func(m map[string]any) { m["zstd_size"] = m["zstd_size"].(int) + 3 })
	a := open(t, b)
	checkProblem(t, a.Problems, kpack.ProblemMalformed, "zstd_size", "end 3 bytes before zstd_size")
}

func TestVerifyCorruptFrame(t *testing.T) {
	b := kpacktest.Build(zstdSpec)
	a := open(t, b)
	// Frame 1's data starts after the count, frame 0 and its own prefix; its
	// header is 7 bytes (magic, descriptor, 2-byte content size). Make the
	// first block header a reserved block type.
	size0 := int(b[68]) | int(b[69])<<8
	data := 64 + 4 + 4 + size0 + 4
	copy(b[data+7:], []byte{0xff, 0xff, 0xff})
	res := a.Verify(bytes.NewReader(b), kpack.VerifyOptions{})
	if len(res.Failures) != 1 || res.Failures[0].Code != kpack.DecompressionFailed || res.Failures[0].Arch != "gfx1101" {
		t.Fatalf("failures = %+v", res.Failures)
	}
	checkProblem(t, res.Problems, kpack.ProblemMalformed, "toc[lib/libhip.so#0][gfx1101]", "DECOMPRESSION_FAILED")
}

func TestVerifyNoopSizeMismatch(t *testing.T) {
	b := mutate(noopSpec, setEntry("bin/testapp#0", "gfx900", "original_size", 5))
	a := open(t, b)
	res := a.Verify(bytes.NewReader(b), kpack.VerifyOptions{})
	if len(res.Failures) != 0 || res.Kernels != 3 {
		t.Errorf("Verify = %+v", res)
	}
	checkProblem(t, res.Problems, kpack.ProblemMalformed, "toc[bin/testapp#0][gfx900].original_size", "blob is 168 bytes, original_size 5")
}

func TestFetchLimit(t *testing.T) {
	b := kpacktest.Build(zstdSpec)
	a, err := kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), kpack.Options{MaxKernelSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, code, _ := a.Fetch(bytes.NewReader(b), "bin/hiptest#0", "gfx1100"); code != kpack.OutOfMemory {
		t.Errorf("code = %v, want OutOfMemory", code)
	}
}

func TestKernelKeysSorted(t *testing.T) {
	a := open(t, kpacktest.Build(noopSpec))
	if got := a.KernelKeys(); !reflect.DeepEqual(got, []string{"bin/testapp#0", "lib/libtest.so#0"}) {
		t.Errorf("KernelKeys = %v", got)
	}
	if e, ok := a.Lookup("lib/libtest.so#0", "gfx906"); !ok || e.Ordinal != 1 || e.OriginalSize != 219 {
		t.Errorf("Lookup = %+v, %v", e, ok)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := kpacktest.WriteFile(t, dir, ".kpack/test_gfx900:xnack-.kpack", noopSpec)
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(b, readTestdata(t, "test_noop.kpack")) {
		t.Errorf("WriteFile: %v", err)
	}
}

func TestDerivedArches(t *testing.T) {
	s := noopSpec
	s.Arches = nil
	a := open(t, kpacktest.Build(s))
	if !reflect.DeepEqual(a.Arches, []string{"gfx900", "gfx906"}) {
		t.Errorf("Arches = %v", a.Arches)
	}
}

func TestProblemAndEntryLimits(t *testing.T) {
	b := mutate(noopSpec, func(m map[string]any) {
		delete(m, "group_name")
		delete(m, "gfx_arch_family")
		delete(m, "format_version")
	})
	a, err := kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), kpack.Options{MaxProblems: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Problems) != 2 || !strings.Contains(a.Problems[1].Msg, "2 more problems") {
		t.Errorf("Problems = %v", a.Problems)
	}
	_, err = kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), kpack.Options{MaxEntries: 2})
	if !errors.Is(err, kpack.ErrLimit) {
		t.Errorf("MaxEntries: err = %v", err)
	}
}

// TestSkipFrameChain: with Options.SkipFrameChain, Open reads the header,
// the TOC and the frame count only; the chain kpack_open walks is checked
// by IndexFrames (check --deep), which fails where Open would.
func TestSkipFrameChain(t *testing.T) {
	skip := kpack.Options{SkipFrameChain: true}
	t.Run("reads", func(t *testing.T) {
		b := readTestdata(t, "test_zstd.kpack")
		cr := &countingReader{r: bytes.NewReader(b)}
		a, err := kpack.OpenOptions(cr, int64(len(b)), skip)
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(64 + (518 - 198) + 4); cr.n != want || cr.calls != 3 {
			t.Errorf("Open read %d bytes in %d calls, want %d in 3", cr.n, cr.calls, want)
		}
		if a.FrameChain || a.FrameCount != 3 {
			t.Errorf("FrameChain %v, FrameCount %d; want false, 3", a.FrameChain, a.FrameCount)
		}
		got, code, err := a.Fetch(bytes.NewReader(b), "bin/hiptest#0", "gfx1100")
		if code != kpack.Success || !bytes.Equal(got, zstdKernels[2].Data) || !a.FrameChain {
			t.Errorf("Fetch = %d bytes, %v, %v; FrameChain %v", len(got), code, err, a.FrameChain)
		}
	})
	t.Run("none", func(t *testing.T) {
		b := readTestdata(t, "test_noop.kpack")
		a, err := kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), skip)
		if err != nil || !a.FrameChain {
			t.Errorf("none archive: err %v, FrameChain %v; want nil, true", err, a.FrameChain)
		}
	})
	broken := []struct {
		name, field string
		in          []byte
	}{
		{"frame runs past blob", "zstd.frames[1]", zstdBlob(cat(u32le(2), u32le(4), []byte("abcd"), u32le(9), []byte("xyz")), 19)},
		{"zstd_size shorter than frames", "zstd.frames[2]",
			mutate(zstdSpec, func(m map[string]any) { m["zstd_size"] = m["zstd_size"].(int) - 1 })},
	}
	for _, tt := range broken {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.in
			a, err := kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), skip)
			if err != nil {
				t.Fatalf("Open with SkipFrameChain: %v", err)
			}
			err = a.IndexFrames(bytes.NewReader(b))
			var fe *kpack.FormatError
			if !errors.As(err, &fe) || fe.Code != kpack.InvalidFormat || fe.Field != tt.field || !errors.Is(err, kpack.ErrZstdIndex) {
				t.Fatalf("IndexFrames = %v, want InvalidFormat at %s", err, tt.field)
			}
			_, full := kpack.Open(bytes.NewReader(b), int64(len(b)))
			if full == nil || full.Error() != err.Error() {
				t.Errorf("IndexFrames error %q, Open's %v", err, full)
			}
			if _, code, _ := a.Fetch(bytes.NewReader(b), "lib/libhip.so#0", "gfx1100"); code != kpack.InvalidFormat {
				t.Errorf("Fetch code %v, want INVALID_FORMAT", code)
			}
		})
	}
	t.Run("trailing bytes", func(t *testing.T) {
		b := mutate(zstdSpec, func(m map[string]any) { m["zstd_size"] = m["zstd_size"].(int) + 3 })
		a, err := kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), skip)
		if err != nil || len(a.Problems) != 0 {
			t.Fatalf("Open: %v, problems %v; want none", err, a.Problems)
		}
		if err := a.IndexFrames(bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		if full := open(t, b); !reflect.DeepEqual(a.Problems, full.Problems) {
			t.Errorf("after IndexFrames %v, Open %v", a.Problems, full.Problems)
		}
	})
}

// TestEntryArches: EntryArches lists the distinct arches of the kept
// entries, sorted, whatever gfx_arches declares.
func TestEntryArches(t *testing.T) {
	b := mutate(noopSpec, func(m map[string]any) { m["gfx_arches"] = []any{"gfx90a", "gfx900"} })
	if got := open(t, b).EntryArches; !reflect.DeepEqual(got, []string{"gfx900", "gfx906"}) {
		t.Errorf("EntryArches = %v, want [gfx900 gfx906]", got)
	}
}

// TestScanFrames: ScanFrames hands over every frame, in order, as stored,
// in reads of about the chunk size, fails where Open's chain walk fails,
// and skips reading frames over the limit.
func TestScanFrames(t *testing.T) {
	b := kpacktest.Build(zstdSpec)
	for _, chunk := range []int{1, 8, 64, 1 << 20} {
		a, err := kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), kpack.Options{SkipFrameChain: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []kpack.ScanFrame
		reads := 0
		n, err := a.ScanFrames(src(b), chunk, 1<<30,
			func(_ kpack.Window, fs []kpack.ScanFrame) error {
				reads++
				got = append(got, fs...)
				return nil
			})
		if err != nil || !a.FrameChain || len(got) != 3 || n < int64(len(got)) {
			t.Fatalf("chunk %d: %d frames, %d bytes read, %v, FrameChain %v", chunk, len(got), n, err, a.FrameChain)
		}
		for i, f := range got {
			if f.Ordinal != uint32(i) || !bytes.Equal(f.Data, b[f.Offset:f.Offset+uint64(f.Size)]) {
				t.Errorf("chunk %d: frame %d = %+v", chunk, i, f)
			}
		}
		if (chunk == 1<<20) != (reads == 1) {
			t.Errorf("chunk %d: %d reads", chunk, reads)
		}
	}
	a, _ := kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), kpack.Options{SkipFrameChain: true})
	_, err := a.ScanFrames(src(b), 64, 0,
		func(_ kpack.Window, fs []kpack.ScanFrame) error {
			for _, f := range fs {
				if f.Data != nil {
					t.Errorf("frame %d read despite the limit", f.Ordinal)
				}
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][]byte{
		zstdBlob(cat(u32le(2), u32le(4), []byte("abcd"), u32le(9), []byte("xyz")), 19),
		mutate(zstdSpec, func(m map[string]any) { m["zstd_size"] = m["zstd_size"].(int) - 1 }),
	} {
		a, err := kpack.OpenOptions(bytes.NewReader(in), int64(len(in)), kpack.Options{SkipFrameChain: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.ScanFrames(src(in), 8, 1<<30,
			func(kpack.Window, []kpack.ScanFrame) error { return nil })
		_, want := kpack.Open(bytes.NewReader(in), int64(len(in)))
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("ScanFrames error %v, Open's %v", err, want)
		}
	}
}

// src reads b into new buffers.
func src(b []byte) kpack.Source {
	return kpack.ReaderSource(bytes.NewReader(b), func(n int) []byte { return make([]byte, n) })
}

// countingSource hands out windows with a Release that counts.
type countingSource struct {
	b               []byte
	reads, released int
	releasedTwice   bool
}

func (c *countingSource) Read(off int64, n int) (kpack.Window, int, error) {
	c.reads++
	done := false
	return kpack.Window{Data: c.b[off : off+int64(n)], Release: func() {
		c.releasedTwice = c.releasedTwice || done
		done = true
		c.released++
	}}, n, nil
}

// TestScanFramesReleases: every window ScanFrames reads is either handed
// to fn (which releases it here) or released by ScanFrames, once, also
// when the chain breaks, fn fails, or a window holds no frame.
func TestScanFramesReleases(t *testing.T) {
	broken := mutate(zstdSpec, func(m map[string]any) { m["zstd_size"] = m["zstd_size"].(int) - 1 })
	for _, c := range []struct {
		name  string
		in    []byte
		chunk int
		fail  bool
	}{
		{"whole", kpacktest.Build(zstdSpec), 1 << 20, false},
		{"small reads", kpacktest.Build(zstdSpec), 4, false},
		{"fn fails", kpacktest.Build(zstdSpec), 4, true},
		{"broken chain", broken, 8, false},
	} {
		a, err := kpack.OpenOptions(bytes.NewReader(c.in), int64(len(c.in)), kpack.Options{SkipFrameChain: true})
		if err != nil {
			t.Fatal(err)
		}
		cs := &countingSource{b: c.in}
		_, _ = a.ScanFrames(cs, c.chunk, 1<<30, func(w kpack.Window, _ []kpack.ScanFrame) error {
			w.Release()
			if c.fail {
				return errors.New("stop")
			}
			return nil
		})
		if cs.reads == 0 || cs.released != cs.reads || cs.releasedTwice {
			t.Errorf("%s: %d windows read, %d released (twice: %v)", c.name, cs.reads, cs.released, cs.releasedTwice)
		}
	}
}

// TestScanFramesTrailing: zstd bytes after the last frame are the Problem
// a full Open reports.
func TestScanFramesTrailing(t *testing.T) {
	b := mutate(zstdSpec, func(m map[string]any) { m["zstd_size"] = m["zstd_size"].(int) + 3 })
	a, err := kpack.OpenOptions(bytes.NewReader(b), int64(len(b)), kpack.Options{SkipFrameChain: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ScanFrames(src(b), 1<<20, 1<<30,
		func(kpack.Window, []kpack.ScanFrame) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if full := open(t, b); !reflect.DeepEqual(a.Problems, full.Problems) {
		t.Errorf("after ScanFrames %v, Open %v", a.Problems, full.Problems)
	}
}

// TestEntryIndex: Entry.Index numbers the entries 0 to Entries-1.
func TestEntryIndex(t *testing.T) {
	a := open(t, kpacktest.Build(noopSpec))
	seen := map[uint32]bool{}
	for _, list := range a.Kernels {
		for _, ae := range list {
			seen[ae.Index] = true
		}
	}
	if a.Entries != 3 || len(seen) != 3 || !seen[0] || !seen[1] || !seen[2] {
		t.Errorf("Entries %d, indexes %v; want 3, 0-2", a.Entries, seen)
	}
}
