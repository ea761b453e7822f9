package hostbin_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

var update = flag.Bool("update", false, "rewrite the generated files in testdata")

// generated are the testdata files made by code; README.md describes them.
var generated = map[string]func() []byte{
	"kpacked.dll": func() []byte {
		ref := hostbintest.RefBytes("bin/hipfft.dll",
			`..\.kpack\fft_test_@GFXARCH@.kpack`, `C:\ROCm\.kpack\fft_test_@GFXARCH@.kpack`)
		ws := append(hostbintest.HIPK(2), hostbintest.Wrap{Magic: hostbin.MagicHIPF})
		return hostbintest.PE(ref, ws)
	},
	"truncated.so": func() []byte { return readTestdata(nil, "hipfft-test")[:4096] },
	"garbage.dll":  func() []byte { return append([]byte("MZ"), bytes.Repeat([]byte{0xff, 0x00, 0x41}, 60)...) },
}

func readTestdata(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		if t == nil {
			panic(err)
		}
		t.Fatal(err)
	}
	return b
}

func TestGeneratedTestdata(t *testing.T) {
	for name, gen := range generated {
		path := filepath.Join("testdata", name)
		want := gen()
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got := readTestdata(t, name); !bytes.Equal(got, want) {
			t.Errorf("%s differs from its generator; run go test ./hostbin -run TestGeneratedTestdata -update", path)
		}
	}
}

func readFile(t *testing.T, name string) *hostbin.Binary {
	t.Helper()
	data := readTestdata(t, name)
	b, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return b
}

// The three scenario binaries, as written by the rocm-kpack ELF writer.
func TestSharedFixtures(t *testing.T) {
	tests := []struct {
		file, kernel, path string
		coIndexes          []uint32
		refOff, fatOff     int64
		refAddr            uint64
	}{
		{"hipfft-test", "bin/hipfft-test", "../.kpack/fft_test_@GFXARCH@.kpack", seq(2), 0x2020, 0x3010, 0x2020},
		{"rocfft-test", "bin/rocfft-test", "../.kpack/fft_test_@GFXARCH@.kpack", seq(3), 0x2020, 0x3010, 0x2020},
		{"libtorch_hip.so", "torch/lib/libtorch_hip.so", "../.kpack/torch_@GFXARCH@.kpack", seq(60), 0x2000, 0x3008, 0x2000},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b := readFile(t, tc.file)
			if b.Format != hostbin.FormatELF || len(b.Problems) != 0 {
				t.Fatalf("format %q, problems %v", b.Format, b.Problems)
			}
			if b.Ref == nil || b.Ref.KernelName != tc.kernel || !slices.Equal(b.Ref.SearchPaths, []string{tc.path}) {
				t.Errorf("Ref = %+v, want %s %s", b.Ref, tc.kernel, tc.path)
			}
			if got := b.COIndexes(); !slices.Equal(got, tc.coIndexes) {
				t.Errorf("COIndexes = %v, want %v", got, tc.coIndexes)
			}
			if b.RefSection.Offset != tc.refOff || b.RefSection.Addr != tc.refAddr || b.FatBinSection.Offset != tc.fatOff {
				t.Errorf("sections %+v %+v", b.RefSection, b.FatBinSection)
			}
			if b.FatBinSection.Size != int64(24*len(tc.coIndexes)) || len(b.Wrappers) != len(tc.coIndexes) {
				t.Errorf("fat-bin size %d, %d wrappers", b.FatBinSection.Size, len(b.Wrappers))
			}
			if !b.Kpacked() {
				t.Error("Kpacked = false")
			}
		})
	}
}

// The ELF fixtures' wrappers point at the reference section (executables)
// or hold 0 for the dynamic loader to relocate (libtorch_hip.so).
func TestSharedFixtureWrapperFields(t *testing.T) {
	for file, want := range map[string]uint64{"hipfft-test": 0x2020, "libtorch_hip.so": 0} {
		for _, w := range readFile(t, file).Wrappers {
			if w.Magic != hostbin.MagicHIPK || w.Version != 1 || w.Binary != want || w.MagicString() != "HIPK" {
				t.Errorf("%s: wrapper %+v", file, w)
			}
		}
	}
}

// RefBytes reproduces the writer's encoding byte for byte.
func TestRefBytesMatchesWriter(t *testing.T) {
	data := readTestdata(t, "libtorch_hip.so")
	b := readFile(t, "libtorch_hip.so")
	s := b.RefSection
	got := hostbintest.RefBytes(b.Ref.KernelName, b.Ref.SearchPaths...)
	if !bytes.Equal(got, data[s.Offset:s.Offset+s.Size]) {
		t.Errorf("RefBytes = %x\nsection = %x", got, data[s.Offset:s.Offset+s.Size])
	}
}

func TestPEFixture(t *testing.T) {
	b := readFile(t, "kpacked.dll")
	if b.Format != hostbin.FormatPE || len(b.Problems) != 0 {
		t.Fatalf("format %q, problems %v", b.Format, b.Problems)
	}
	wantPaths := []string{`..\.kpack\fft_test_@GFXARCH@.kpack`, `C:\ROCm\.kpack\fft_test_@GFXARCH@.kpack`}
	if b.Ref == nil || b.Ref.KernelName != "bin/hipfft.dll" || !slices.Equal(b.Ref.SearchPaths, wantPaths) {
		t.Fatalf("Ref = %+v", b.Ref)
	}
	if got := b.COIndexes(); !slices.Equal(got, []uint32{0, 1}) || len(b.Wrappers) != 3 {
		t.Errorf("COIndexes = %v, %d wrappers", got, len(b.Wrappers))
	}
	if b.RefSection.Name != ".kpackrf" || b.RefSection.Addr != 0x180001000 || b.FatBinSection.Name != ".hipFatB" {
		t.Errorf("sections %+v %+v", b.RefSection, b.FatBinSection)
	}
	// Raw data is padded to 512 bytes; the section size is VirtualSize.
	if b.FatBinSection.Size != 72 || b.Wrappers[0].Binary != b.RefSection.Addr {
		t.Errorf("fat-bin %+v, wrapper %+v", b.FatBinSection, b.Wrappers[0])
	}
	norm := hostbin.NormalizeSearchPath(b.Ref.SearchPaths[0], b.Format)
	if norm != "../.kpack/fft_test_@GFXARCH@.kpack" || hostbin.IsAbs(norm, b.Format) ||
		!hostbin.IsAbs(b.Ref.SearchPaths[1], b.Format) {
		t.Errorf("path helpers: %q", norm)
	}
}

func TestBrokenFiles(t *testing.T) {
	for _, name := range []string{"truncated.so", "garbage.dll"} {
		data := readTestdata(t, name)
		_, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
		var fe *hostbin.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: err = %v, want *FormatError", name, err)
		}
	}
}

func seq(n int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(i)
	}
	return s
}
