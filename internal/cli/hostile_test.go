package cli

// Hostile inputs (issue 10): each test builds, scaled down, the input of
// one recipe of ../shared/fixtures/hostile and checks that the run ends
// with a finding or exit 2, in bounded memory, with escaped output.

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

func hostBinary(kernelName string, paths ...string) []byte {
	return hostbintest.ELF(hostbintest.RefBytes(kernelName, paths...), hostbintest.HIPK(1))
}

// zstdArchive is one archive of group g for gfx950 whose only frame is
// frame, filed as bin/x#0 with originalSize.
func zstdArchive(frame []byte, originalSize uint64) []byte {
	blob := append(le32(1), le32(uint32(len(frame)))...)
	blob = append(blob, frame...)
	toc := kpacktest.Msgpack(map[string]any{"format_version": 1, "group_name": "g", "gfx_arch_family": "gfx950",
		"gfx_arches": []any{"gfx950"}, "compression_scheme": "zstd-per-kernel", "zstd_offset": 64, "zstd_size": len(blob),
		"toc": map[string]any{"bin/x#0": map[string]any{"gfx950": map[string]any{"type": "hsaco", "ordinal": 0, "original_size": originalSize}}}})
	head := append([]byte(kpack.Magic), le32(1)...)
	head = append(head, le64(uint64(64+len(blob)))...)
	head = append(head, make([]byte, 48)...)
	return append(append(head, blob...), toc...)
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// deep-window-bypass: a corrupt frame declaring a 2 GiB window must fail
// --deep (it used to be skipped and pass).
func TestHostileDeepWindowBypass(t *testing.T) {
	frame := append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8}, bytes.Repeat([]byte{0x5a}, 200)...)
	dir := testtree.Write(t, map[string][]byte{".kpack/g_gfx950.kpack": zstdArchive(frame, 256)})
	code, out, stderr := run(t, "check", "--deep", dir)
	if code != ExitFindings || !strings.Contains(out, "DECOMPRESSION_FAILED") {
		t.Errorf("exit %d, stderr %q, out:\n%s", code, stderr, out)
	}
}

// A frame --deep cannot verify within --deep-memory is exit 2 naming the
// limit, never a pass: 64 MiB of zeros declared in a single-segment frame
// (window = content size) with --deep-memory 16.
func TestHostileDeepMemoryLimitIsExit2(t *testing.T) {
	size := 64 << 20
	frame := kpacktest.ZstdFrame(int64(size), 0, kpacktest.RLEBlocks(size, 0, true)...) // single segment: window = content size
	dir := testtree.Write(t, map[string][]byte{
		".kpack/g_gfx950.kpack": zstdArchive(frame, uint64(size)),
		"bin/x":                 hostBinary("bin/x", "../.kpack/g_@GFXARCH@.kpack"),
	})
	code, _, stderr := run(t, "check", "--deep", "--deep-memory", "16", dir)
	if code != ExitUsage || !strings.Contains(stderr, "--deep-memory 16 MiB") || !strings.Contains(stderr, "raise --deep-memory") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// explain-zstd-bomb-rss: explain decompresses under --deep-memory (a 1 GiB
// RLE frame once took 1 GiB of RSS; here 256 MiB with a 16 MiB budget).
func TestHostileExplainBombBounded(t *testing.T) {
	size := 256 << 20
	if testing.Short() {
		size = 32 << 20
	}
	// Content size = original_size, but a 256 KiB window (not single
	// segment), as the recipe's frame.
	frame := kpacktest.ZstdFrame(-1, 0x38, kpacktest.RLEBlocks(size, 0, true)...)
	frame = append(append(append([]byte(nil), frame[:4]...), 0xc0, 0x38), append(le64(uint64(size)), frame[6:]...)...)
	dir := testtree.Write(t, map[string][]byte{".kpack/g_gfx950.kpack": zstdArchive(frame, uint64(size))})
	var code int
	var out string
	n := kpacktest.Allocated(func() {
		code, out, _ = run(t, "explain", "--deep-memory", "16", "--agent", "gfx950", "--search", ".kpack/g_@GFXARCH@.kpack", "bin/x#0", dir)
	})
	if code != ExitOK || !strings.Contains(out, "hipErrorInvalidImage") || n > 48<<20 {
		t.Errorf("exit %d, allocated %d, out:\n%s", code, n, out)
	}
}

// explain-terminal-injection, policy-error-unescaped: ESC, CR and LF from a
// search path, a policy key or an input name never reach the terminal raw.
func TestHostileOutputEscaped(t *testing.T) {
	evil := "../\x1b[2J\x1b[32mkpack: KPACK_SUCCESS\n\rkpack: x_@GFXARCH@.kpack\u202e"
	dir := testtree.Write(t, map[string][]byte{"bin/x": hostBinary("bin/x", evil)})
	_, out, _ := run(t, "explain", "--agent", "gfx950:sramecc+:xnack+", "bin/x#0", dir)
	if strings.ContainsAny(out, "\x1b\r\u202e") || !strings.Contains(out, `\x1b[2J`) || !strings.HasSuffix(strings.Split(out, "\n")[2], ".kpack\\u202e: missing or fails to open") {
		t.Errorf("explain output not escaped:\n%q", out)
	}
	pol := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(pol, []byte("version: 1\nrules:\n  \"KPL\\e[2J\\e[31m\\nFAKE LINE\": {level: off}\n"), 0o644)
	for _, args := range [][]string{
		{"check", "--policy", pol, dir},
		{"check", "no\nsuch\x1b[31m"},
	} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || strings.ContainsRune(stderr, 0x1b) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
	}
	// JSON messages escape C1 and bidi controls too.
	code, out, _ := run(t, "check", "--target", "gfx950", "--format", "json", dir)
	if code != ExitFindings || strings.ContainsRune(out, 0x202e) || !strings.Contains(out, `\\u202e`) {
		t.Errorf("json: exit %d:\n%s", code, out)
	}
}

// policy-template-doubling: a policy whose transforms double the target 32
// times is a usage error naming the transform, not 24 GiB.
func TestHostilePolicyTemplateDoubling(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nvariants: {release: {targets: [gfx950], transform: [")
	for range 32 {
		b.WriteString(`{match: "^.*$", replace: "${0}${0}"},`)
	}
	b.WriteString("]}}\n")
	pol := filepath.Join(t.TempDir(), "double.yaml")
	os.WriteFile(pol, []byte(b.String()), 0o644)
	code, _, stderr := run(t, "check", "--policy", pol, filepath.Join(testdata, "example"))
	if code != ExitUsage || !strings.Contains(stderr, "transform[5]") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// fuzz-tarindex-unexpected-eof: a compressed tar cut inside a kept member
// is exit 2 naming the member and the broken stream.
func TestHostileTruncatedTarNamesMember(t *testing.T) {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	data := append([]byte("\x7fELF"), make([]byte, 2<<20-4)...)
	tw.WriteHeader(&tar.Header{Name: "lib/libbig.so", Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
	tw.Write(data)
	tw.Close()
	p := filepath.Join(t.TempDir(), "cut.tar.gz")
	writeGzip(t, p, raw.Bytes()[:512+1<<20])
	code, _, stderr := run(t, "check", p)
	if code != ExitUsage || !strings.Contains(stderr, `inside member "lib/libbig.so"`) || !strings.Contains(stderr, "unexpected EOF") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// toc-keys-memory: many orphan kernel names give at most 100 findings per
// file, every key still listed.
func TestHostileManyOrphanNamesCapped(t *testing.T) {
	const n = 3000
	var ks []kpacktest.Kernel
	for i := range n {
		ks = append(ks, kpacktest.Kernel{Key: fmt.Sprintf("k/%d#0", i), Arch: "gfx950", Data: []byte("\x7fELF")})
	}
	ks = append(ks, kpacktest.Kernel{Key: "bin/x#0", Arch: "gfx950", Data: []byte("\x7fELF")})
	dir := testtree.Write(t, map[string][]byte{
		".kpack/g_gfx950.kpack": kpacktest.Build(kpacktest.Spec{Group: "g", Kernels: ks}),
		"bin/x":                 hostBinary("bin/x", "../.kpack/g_@GFXARCH@.kpack"),
	})
	code, out, _ := run(t, "check", "--format", "json", dir)
	if code != ExitOK || strings.Count(out, `"ruleId": "KPL008"`) != 100 || !strings.Contains(out, "2901 more kernel names") ||
		!strings.Contains(out, `"k/999#0"`) {
		t.Errorf("exit %d, %d KPL008 findings", code, strings.Count(out, `"ruleId": "KPL008"`))
	}
}

func writeGzip(t *testing.T, p string, data []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// KPL006 for a binary whose search paths name no group never reads "of
// group  opens".
func TestHostileMissingArchiveWithoutGroup(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{"bin/x": hostBinary("bin/x", "../share/x-@GFXARCH@.bin")})
	code, out, _ := run(t, "check", "--target", "gfx950", dir)
	if code != ExitFindings || !strings.Contains(out, "No kpack archive of group (none named by its search paths) opens for bin/x#0") || strings.Contains(out, "group  ") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// An unreadable file alone (a wheel member whose deflate data is corrupt)
// is an error, never exit 0.
func TestHostileUnreadableFileFails(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("lib/libx.so")
	w.Write(hostBinary("lib/libx.so", "../.kpack/g_@GFXARCH@.kpack"))
	zw.Close()
	data := buf.Bytes()
	i := bytes.Index(data, []byte("lib/libx.so")) + len("lib/libx.so")
	for j := i; j < i+8; j++ {
		data[j] ^= 0xff // break the deflate stream of the only member
	}
	p := filepath.Join(t.TempDir(), "x-1.0-py3-none-any.whl")
	os.WriteFile(p, data, 0o644)
	code, out, stderr := run(t, "check", "--target", "gfx950", p)
	if code != ExitFindings || !strings.Contains(out, "error KPL007") || !strings.Contains(out, "could not be read") {
		t.Errorf("exit %d: %s %s", code, out, stderr)
	}
}
