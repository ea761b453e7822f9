package lint_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/targetid"
)

var update = flag.Bool("update", false, "rewrite testdata/example and the golden files")

// exampleDir is the shipped example build the README runs check on.
const exampleDir = "../../testdata/example"

// codeObject returns a minimal AMDGPU code object (ELF header) for arch,
// distinct per kernel key. blas_lib's gfx1151 archive deliberately stores
// gfx1100 code objects (a wrong-processor KPL009 that only --deep sees).
func codeObject(key, arch string) []byte {
	if strings.HasPrefix(key, "lib/librocblas.so.5#") && arch == "gfx1151" {
		arch = "gfx1100"
	}
	if _, err := targetid.Parse(arch); err != nil {
		return []byte("not a code object: " + key) // archives with invalid targets in tests
	}
	return codeobjtest.CodeObject(arch, key)
}

func kernels(name string, n int, arch string) []kpacktest.Kernel {
	var out []kpacktest.Kernel
	for i := 0; i < n; i++ {
		key := name + "#" + strconv.Itoa(i)
		out = append(out, kpacktest.Kernel{Key: key, Arch: arch, Data: codeObject(key, arch)})
	}
	return out
}

type exampleArchive struct {
	dir, group, arch string
	parts            []kpacktest.Kernel
}

// exampleArchives describes the example build: a clean BLAS library, the
// ROCM-31644 fft_test group (rocFFT strips feature flags, hipFFT keeps
// them), and a sparse library with no gfx1151 archive.
func exampleArchives() []exampleArchive {
	var out []exampleArchive
	for _, arch := range []string{"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1151", "gfx90a:xnack+", "gfx942:xnack+", "gfx950:xnack+"} {
		out = append(out, exampleArchive{"lib/.kpack", "blas_lib", arch, kernels("lib/librocblas.so.5", 4, arch)})
	}
	for _, arch := range []string{"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx90a:xnack+", "gfx942:xnack+", "gfx950:xnack+"} {
		out = append(out, exampleArchive{"lib/.kpack", "sparse_lib", arch, kernels("lib/librocsparse.so.1", 3, arch)})
	}
	for _, arch := range []string{"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1151"} {
		ks := append(kernels("bin/rocfft-test", 3, arch), kernels("bin/hipfft-test", 2, arch)...)
		out = append(out, exampleArchive{"lib/.kpack", "fft_test", arch, ks})
	}
	for _, arch := range []string{"gfx90a:xnack+", "gfx942:xnack+", "gfx950:xnack+"} {
		out = append(out, exampleArchive{"lib/.kpack", "fft_test", arch, kernels("bin/hipfft-test", 2, arch)})
	}
	// rocFFT's bare kernels only: hipFFT's bare ones live in the shared
	// archive above. Nothing else is needed to show the seed bug.
	return out
}

type exampleBinary struct {
	path, kernelName, search string
	n                        int
}

func exampleBinaries() []exampleBinary {
	return []exampleBinary{
		{"lib/librocblas.so.5", "lib/librocblas.so.5", ".kpack/blas_lib_@GFXARCH@.kpack", 4},
		{"lib/librocsparse.so.1", "lib/librocsparse.so.1", ".kpack/sparse_lib_@GFXARCH@.kpack", 3},
		{"bin/rocfft-test", "bin/rocfft-test", "../lib/.kpack/fft_test_@GFXARCH@.kpack", 3},
		{"bin/hipfft-test", "bin/hipfft-test", "../lib/.kpack/fft_test_@GFXARCH@.kpack", 2},
	}
}

// writeExample regenerates testdata/example (go test ./check -update).
func writeExample(t *testing.T) {
	t.Helper()
	if err := os.RemoveAll(exampleDir); err != nil {
		t.Fatal(err)
	}
	for _, a := range exampleArchives() {
		dir := filepath.Join(exampleDir, a.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		kpacktest.WriteFile(t, dir, a.group+"_"+a.arch+".kpack", kpacktest.Spec{
			Group: a.group, Family: a.arch, Scheme: kpack.SchemeZstd, Kernels: a.parts,
		})
	}
	for _, b := range exampleBinaries() {
		p := filepath.Join(exampleDir, b.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		elf := hostbintest.ELF(hostbintest.RefBytes(b.kernelName, b.search), hostbintest.HIPK(b.n))
		if err := os.WriteFile(p, elf, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"lib/librocblas.so": "librocblas.so.5", "lib/librocsparse.so": "librocsparse.so.1"} {
		if err := os.Symlink(target, filepath.Join(exampleDir, link)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExampleBuild(t *testing.T) {
	if *update {
		writeExample(t)
	}
	if _, err := os.Stat(exampleDir); err != nil {
		t.Fatalf("%v (regenerate with go test ./check -update)", err)
	}
}
