package cli

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"debug/elf"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// budgetBuild is a small kpack'd build (one archive of one 256-byte frame
// and the host binary loading it) plus a 3 MiB file nobody keeps: in a
// package, 3 MiB of stream to decompress.
func budgetBuild() map[string][]byte {
	frame := kpacktest.ZstdFrame(256, 0, kpacktest.RLEBlocks(256, 0, true)...)
	return map[string][]byte{
		"lib/.kpack/g_gfx950.kpack": zstdArchive(frame, 256),
		"lib/bin/x":                 hostBinary("bin/x", "../.kpack/g_@GFXARCH@.kpack"),
		"share/doc/big":             make([]byte, 3<<20),
	}
}

func pkgFilesOf(files map[string][]byte) []pkgbuild.File {
	var out []pkgbuild.File
	for _, p := range []string{"lib/.kpack/g_gfx950.kpack", "lib/bin/x", "share/doc/big"} {
		out = append(out, pkgbuild.Reg("usr/"+p, files[p]))
	}
	return out
}

// zeroFrame is a zstd frame decoding to n zero bytes, its content size
// declared (decoded in place).
func zeroFrame(n int) []byte {
	return kpacktest.ZstdFrame(int64(n), 0, kpacktest.RLEBlocks(n, 0, true)...)
}

// compressedRelaBinary is a position-independent binary whose HIPF
// wrapper is filled by a zstd-compressed .rela.dyn of n bytes (within
// elfsafe.MaxInflate: n zero bytes, no relocation).
func compressedRelaBinary(n int) []byte {
	le := binary.LittleEndian
	chdr := le.AppendUint64(le.AppendUint64(le.AppendUint32(le.AppendUint32(nil, uint32(elf.COMPRESS_ZSTD)), 0), uint64(n)), 8)
	bundle := hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx942")
	return hostbintest.ELFWith(
		hostbintest.ELFSection{Name: hostbin.BundleSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 64, Data: bundle},
		hostbintest.ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC | elf.SHF_WRITE, Align: 8,
			Data: hostbintest.WrapperBytes([]hostbintest.Wrap{{Magic: hostbin.MagicHIPF}}, 0)},
		hostbintest.ELFSection{Name: ".rela.dyn", Type: elf.SHT_RELA, Flags: elf.SHF_COMPRESSED, Align: 8,
			Data: append(chdr, kpacktest.ZstdFrame(-1, 0x70, kpacktest.RLEBlocks(n, 0, true)...)...)})
}

// ccobBinary is a binary with embedded device code: one CCOB (zstd)
// bundle whose gfx942 entry is n bytes.
func ccobBinary(n int) []byte {
	bundle := hostbintest.Compress(false, hostbintest.BundleOf(
		hostbintest.Entry{ID: hostbintest.HostEntry, Data: []byte{0}},
		hostbintest.Entry{ID: "hipv4-amdgcn-amd-amdhsa--gfx942", Data: make([]byte, n)}))
	return hostbintest.EmbeddedELF([][]byte{bundle}, false)
}

func wheel(t *testing.T, files map[string][]byte) string {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, p := range []string{"lib/.kpack/g_gfx950.kpack", "lib/bin/x"} {
		f, _ := w.Create(p)
		f.Write(files[p])
	}
	w.Close()
	p := filepath.Join(t.TempDir(), "x-1.0-py3-none-linux_x86_64.whl")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every kind of decoder draws on the one budget of a run: past
// --max-decompressed each is exit 2 naming the stream, the budget and the
// flag; within it (the default, or a larger budget) the same input is
// checked (exit 0 or 1).
func TestMaxDecompressedEveryDecoder(t *testing.T) {
	build := budgetBuild()
	tarball := pkgbuild.Write(t, "x.tar.xz", pkgbuild.Compress(t, "xz", pkgbuild.Tar(t, pkgFilesOf(build))))
	deb := pkgbuild.Write(t, "x_1.0_amd64.deb", pkgbuild.Deb(t, "xz", pkgFilesOf(build)))
	rpm := pkgbuild.Write(t, "x-1.0-1.x86_64.rpm", pkgbuild.RPM(t, "zstd", pkgFilesOf(build)))
	bigBinary := append(append([]byte(nil), build["lib/bin/x"]...), make([]byte, 3<<20)...) // trailing bytes: still the ELF
	whl := wheel(t, map[string][]byte{"lib/.kpack/g_gfx950.kpack": build["lib/.kpack/g_gfx950.kpack"], "lib/bin/x": bigBinary})
	frames := testtree.Write(t, map[string][]byte{
		".kpack/g_gfx950.kpack": zstdArchive(zeroFrame(3<<20), 3<<20),
		"bin/x":                 hostBinary("bin/x", "../.kpack/g_@GFXARCH@.kpack"),
	})
	rela := testtree.Write(t, map[string][]byte{"lib/libx.so": compressedRelaBinary(3 << 20)})
	ccob := testtree.Write(t, map[string][]byte{"lib/libx.so": ccobBinary(3 << 20)})
	tests := []struct {
		name, stream string
		args         []string
	}{
		{"tar.xz", tarball + " (its tar.xz stream)", []string{"check", "--no-policy", "--target", "gfx950", tarball}},
		{"deb data.tar.xz", deb + " (its tar.xz stream)", []string{"check", "--no-policy", "--target", "gfx950", deb}},
		{"rpm cpio.zst", rpm + " (its cpio.zst stream)", []string{"check", "--no-policy", "--target", "gfx950", rpm}},
		{"wheel member", whl + ` member "lib/bin/x"`, []string{"check", "--no-policy", "--target", "gfx950", whl}},
		{"--deep zstd frames", "the zstd frames of .kpack/g_gfx950.kpack", []string{"check", "--deep", "--no-policy", "--target", "gfx950", frames}},
		{"compressed .rela.dyn", "host binary lib/libx.so", []string{"check", "--no-policy", "--target", "gfx942", rela}},
		{"--deep CCOB bundle", "the offload bundle at offset ", []string{"check", "--deep", "--no-policy", "--target", "gfx942", ccob}},
		{"explain zstd frame", "the zstd frames of .kpack/g_gfx950.kpack", []string{"explain", "--no-policy", "--agent", "gfx950:sramecc+:xnack+", "bin/x#0", frames}},
		{"explain-db stream", tarball + " (its tar.xz stream)", []string{"explain-db", "rocblas", "--agent", "gfx942:sramecc+:xnack-", tarball}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{tt.args[0], "--max-decompressed", "1MiB"}, tt.args[1:]...)
			code, _, stderr := run(t, args...)
			want := "kpack-lint: decompressing " + tt.stream
			tail := "passed the run's budget of 1 MiB of decompressed data (--max-decompressed); it was not read further: " +
				"raise --max-decompressed for a build that needs more\n"
			if code != ExitUsage || !strings.HasPrefix(stderr, want) || !strings.HasSuffix(stderr, tail) {
				t.Fatalf("1 MiB: exit %d, stderr %q; want exit 2 and %q ... %q", code, stderr, want, tail)
			}
			if tt.args[0] == "explain-db" {
				return // past the budget it is exit 2; within it, exit 2 too (no rocBLAS in the build)
			}
			args[2] = "64MiB"
			if code, out, stderr := run(t, args...); code == ExitUsage {
				t.Fatalf("64 MiB: exit %d, stderr %q, out:\n%s", code, stderr, out)
			}
		})
	}
}

// Several goroutines decode under --deep: whichever trips the budget, the
// exit code and the message's shape are the same.
func TestMaxDecompressedConcurrent(t *testing.T) {
	files := map[string][]byte{"bin/x": hostBinary("bin/x", "../.kpack/g_@GFXARCH@.kpack")}
	for i := range 8 {
		files[fmt.Sprintf(".kpack/g%d_gfx950.kpack", i)] = zstdArchive(zeroFrame(2<<20), 2<<20)
	}
	dir := testtree.Write(t, files)
	shape := regexp.MustCompile(`^kpack-lint: decompressing the zstd frames of \.kpack/g[0-7]_gfx950\.kpack passed the run's budget of 5 MiB of decompressed data \(--max-decompressed\); it was not read further: raise --max-decompressed for a build that needs more\n$`)
	for range 5 {
		code, _, stderr := run(t, "check", "--deep", "--no-policy", "--target", "gfx950", "--max-decompressed", "5MiB", dir)
		if code != ExitUsage || !shape.MatchString(stderr) {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	}
}

// --max-decompressed takes a size with a unit; anything else is a usage
// error naming the flag.
func TestMaxDecompressedValues(t *testing.T) {
	for s, want := range map[string]int64{
		"4GiB": 4 << 30, "4gib": 4 << 30, "1.5 GiB": 3 << 29, "512M": 512 << 20, "20GB": 20e9, "100000": 100000, "1k": 1024, "2KB": 2000,
	} {
		if got, ok := parseSize(s); !ok || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "0", "-1", "GiB", "4 PiB", "2TiBs", "1e9", "0.1", "2000TiB"} {
		if got, ok := parseSize(s); ok {
			t.Errorf("parseSize(%q) = %d, want refused", s, got)
		}
	}
	code, _, stderr := run(t, "check", "--no-policy", "--max-decompressed", "lots", scenario("seed-fft-asan"))
	if code != ExitUsage || !strings.Contains(stderr, `--max-decompressed "lots": want a size from 1 byte to 1 PiB`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// zip-overlap-bomb, scaled down: one deflated member listed under 30
// names is refused as a zip bomb naming two of them, before anything is
// inflated or spilled.
func TestZipOverlapBombIsExit2(t *testing.T) {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, 9)
	body := append(append([]byte("KPAK"), binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, 64), 1)...), make([]byte, 8<<20)...)
	fw.Write(body)
	fw.Close()
	le := binary.LittleEndian
	name := func(i int) []byte { return []byte(fmt.Sprintf(".kpack/b%d_gfx950.kpack", i)) }
	crc := crc32.ChecksumIEEE(body)
	local := le.AppendUint32(nil, 0x04034b50)
	for _, v := range []uint16{20, 0, 8, 0, 0} {
		local = le.AppendUint16(local, v)
	}
	local = le.AppendUint32(le.AppendUint32(le.AppendUint32(local, crc), uint32(comp.Len())), uint32(len(body)))
	local = append(le.AppendUint16(le.AppendUint16(local, uint16(len(name(0)))), 0), name(0)...)
	local = append(local, comp.Bytes()...)
	var cd []byte
	for i := range 30 {
		r := le.AppendUint32(nil, 0x02014b50)
		for _, v := range []uint16{0x031e, 20, 0, 8, 0, 0} {
			r = le.AppendUint16(r, v)
		}
		r = le.AppendUint32(le.AppendUint32(le.AppendUint32(r, crc), uint32(comp.Len())), uint32(len(body)))
		for _, v := range []uint16{uint16(len(name(i))), 0, 0, 0, 0} {
			r = le.AppendUint16(r, v)
		}
		r = append(le.AppendUint32(le.AppendUint32(r, 0o100644<<16), 0), name(i)...)
		cd = append(cd, r...)
	}
	eocd := le.AppendUint32(nil, 0x06054b50)
	eocd = le.AppendUint16(le.AppendUint16(le.AppendUint16(le.AppendUint16(eocd, 0), 0), 30), 30)
	eocd = le.AppendUint16(le.AppendUint32(le.AppendUint32(eocd, uint32(len(cd))), uint32(len(local))), 0)
	p := filepath.Join(t.TempDir(), "bomb.zip")
	if err := os.WriteFile(p, append(append(local, cd...), eocd...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "check", "--no-policy", p)
	want := `kpack-lint: ` + p + `: zip bomb refused: members ".kpack/b0_gfx950.kpack" and ".kpack/b1_gfx950.kpack" are one stored member under two names`
	if code != ExitUsage || !strings.HasPrefix(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, stderr, want)
	}
}

// --deep-memory takes MiB as a bare number (as it always did) or a size
// with a unit, from 1 MiB to 1 TiB; anything else is a usage error
// naming the flag and both forms.
func TestDeepMemoryValues(t *testing.T) {
	budget := func(s string) (int64, error) {
		set := flag.NewFlagSet("check", flag.ContinueOnError)
		if err := deepMemoryFlag().Apply(set); err != nil {
			t.Fatal(err)
		}
		if err := set.Parse([]string{"--deep-memory", s}); err != nil {
			t.Fatal(err)
		}
		return memoryBudget(ucli.NewContext(nil, set, nil))
	}
	for s, want := range map[string]int64{"256": 256 << 20, "64": 64 << 20, "512MiB": 512 << 20, "2GiB": 2 << 30, "1 TiB": 1 << 40, "1.5G": 3 << 29} {
		if got, err := budget(s); err != nil || got != want {
			t.Errorf("--deep-memory %q = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"0", "-1", "512KiB", "2TiB", "1048577", "99999999999999", "lots", ""} {
		if got, err := budget(s); err == nil || !strings.Contains(err.Error(), "--deep-memory") || !strings.Contains(err.Error(), "512MiB") {
			t.Errorf("--deep-memory %q = %d, %v; want a usage error", s, got, err)
		}
	}
}
