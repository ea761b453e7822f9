package lint_test

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

var torchTree = filepath.Join("..", "..", "testdata", "scenarios", "torch-gfx90a-split", "tree")

// treeFiles reads every regular file below dir, by slash path.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func writeZip(t *testing.T, path string, files map[string][]byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func writeTar(t *testing.T, w io.Writer, files map[string][]byte, extra ...*tar.Header) {
	t.Helper()
	tw := tar.NewWriter(w)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	for _, h := range extra {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeTarFile(t *testing.T, path string, files map[string][]byte, extra ...*tar.Header) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w io.WriteCloser = nopCloser{f}
	switch {
	case strings.HasSuffix(path, ".gz"):
		w = gzip.NewWriter(f)
	case strings.HasSuffix(path, ".zst"):
		zw, err := zstd.NewWriter(f)
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	}
	writeTar(t, w, files, extra...)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// fingerprints summarises findings by what must not depend on packaging:
// rule, path, kernels and agents.
func fingerprints(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.RuleID+" "+f.Location.Path+" "+finding.Fingerprint(f)+" "+strings.Join(f.Kernels, ",")+" "+strings.Join(f.Agents, ","))
	}
	return out
}

// TestSameFindingsAcrossPackaging: the torch scenario as a directory, as a
// base wheel + device wheel, as .tar.gz and as .tar.zst gives the same
// findings (TheRock#7081 shadowing, KPL002).
func TestSameFindingsAcrossPackaging(t *testing.T) {
	files := treeFiles(t, torchTree)
	tmp := t.TempDir()
	base, device := map[string][]byte{}, map[string][]byte{}
	for p, d := range files {
		if strings.Contains(p, ".kpack/") {
			device[p] = d
		} else {
			base[p] = d
		}
	}
	writeZip(t, filepath.Join(tmp, "torch-2.12-cp312-linux_x86_64.whl"), base)
	writeZip(t, filepath.Join(tmp, "amd_torch_device_gfx90a-2.12-py3-none-linux_x86_64.whl"), device)
	writeTarFile(t, filepath.Join(tmp, "torch.tar.gz"), files)
	writeTarFile(t, filepath.Join(tmp, "torch.tar.zst"), files)

	opt := lint.Config{Targets: []string{"gfx90a"}}
	want := fingerprints(runCheck(t, opt, torchTree))
	if len(want) != 2 {
		t.Fatalf("directory: want 2 KPL002 findings, got %v", want)
	}
	for name, inputs := range map[string][]string{
		"wheels":  {filepath.Join(tmp, "torch-2.12-cp312-linux_x86_64.whl"), filepath.Join(tmp, "amd_torch_device_gfx90a-2.12-py3-none-linux_x86_64.whl")},
		"tar.gz":  {filepath.Join(tmp, "torch.tar.gz")},
		"tar.zst": {filepath.Join(tmp, "torch.tar.zst")},
	} {
		if got := fingerprints(runCheck(t, opt, inputs...)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
}

// TestTarEscapesRefused: members that are absolute or climb out with ".."
// are refused with a KPL005 finding and never read.
func TestTarEscapesRefused(t *testing.T) {
	tmp := t.TempDir()
	tgz := filepath.Join(tmp, "evil.tar.gz")
	writeTarFile(t, tgz, map[string][]byte{"../evil.kpack": []byte("KPAK"), "/abs/x.kpack": []byte("KPAK"), "ok.txt": []byte("hi")})
	fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, tgz), "KPL005")
	if len(fs) != 2 {
		t.Fatalf("want 2 refused entries, got %+v", fs)
	}
	for _, f := range fs {
		if f.Location.Path != "evil.tar.gz" {
			t.Errorf("location %q", f.Location.Path)
		}
	}
}

// TestSymlinkLoopIsNotFatal: a loop between two links is a finding-free
// dead end for the loader, never a hang or a crash.
func TestSymlinkLoopIsNotFatal(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		"lib/libx.so": binaryELF("lib/libx.so", ".kpack/x_@GFXARCH@.kpack", 1),
	})
	os.MkdirAll(filepath.Join(dir, "lib", ".kpack"), 0o755)
	os.Symlink("b.kpack", filepath.Join(dir, "lib", ".kpack", "x_gfx1100.kpack"))
	os.Symlink("x_gfx1100.kpack", filepath.Join(dir, "lib", ".kpack", "b.kpack"))
	fs := runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir)
	if m := byRule(fs, "KPL006"); len(m) != 1 {
		t.Errorf("want KPL006 (the looping link opens nothing), got %+v", fs)
	}
}

// TestCopiedLibraryLooksFromItsOwnFolder is TheRock PR 5768: a copy of a
// versioned library in another package resolves ../.kpack from the copy's
// folder, while a symlink resolves from its target's.
func TestCopiedLibraryLooksFromItsOwnFolder(t *testing.T) {
	lib := binaryELF("lib/libamdhip64.so.7", ".kpack/hip_@GFXARCH@.kpack", 2)
	dir := testtree.Write(t, map[string][]byte{
		"lib/libamdhip64.so.7":         lib,
		"lib/.kpack/hip_gfx1100.kpack": zstdArchive("hip", "gfx1100", "lib/libamdhip64.so.7", 2),
		"devel/lib/libamdhip64.so.7":   lib, // a copy: wheels cannot hold symlinks
	})
	os.Symlink("libamdhip64.so.7", filepath.Join(dir, "lib", "libamdhip64.so"))
	fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir), "KPL006")
	if len(fs) != 1 || fs[0].Location.Path != "devel/lib/libamdhip64.so.7" {
		t.Fatalf("want one KPL006 at the copy, got %+v", fs)
	}
	if !strings.Contains(fs[0].Message, "devel/lib/.kpack/hip_gfx1100.kpack") {
		t.Errorf("message should name the file the copy looks for: %s", fs[0].Message)
	}
}

// TestWindowsHostBinary: a PE .dll with .kpackrf/.hipFatB and backslash
// search paths loads its kernels like an ELF one.
func TestWindowsHostBinary(t *testing.T) {
	dll := hostbintest.PE(hostbintest.RefBytes("bin/rocblas.dll", `.kpack\blas_lib_@GFXARCH@.kpack`), hostbintest.HIPK(3))
	dir := testtree.Write(t, map[string][]byte{
		"bin/rocblas.dll":                   dll,
		"bin/.kpack/blas_lib_gfx1151.kpack": zstdArchive("blas_lib", "gfx1151", "bin/rocblas.dll", 2),
	})
	fs := runCheck(t, lint.Config{Targets: []string{"gfx1151"}}, dir)
	un := byRule(fs, "KPL001")
	if len(un) != 1 || strings.Join(un[0].Kernels, ",") != "bin/rocblas.dll#2" {
		t.Fatalf("want KPL001 for co_index 2 only, got %+v", fs)
	}
}

// TestOverlayComparesFinalCopy: a later input that holds a path twice is
// compared by its final copy with the earlier input, and its own duplicate
// is reported too.
func TestOverlayComparesFinalCopy(t *testing.T) {
	tmp := t.TempDir()
	lib := binaryELF("lib/libx.so", ".kpack/x_@GFXARCH@.kpack", 1)
	good := zstdArchive("x", "gfx1100", "lib/libx.so", 1)
	other := zstdArchive("x", "gfx1100", "lib/libx.so", 2)
	base := testtree.Write(t, map[string][]byte{"lib/libx.so": lib, "lib/.kpack/x_gfx1100.kpack": good})
	f, err := os.Create(filepath.Join(tmp, "dup.tar"))
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for _, data := range [][]byte{good, other} { // same as the base first, then different
		tw.WriteHeader(&tar.Header{Name: "lib/.kpack/x_gfx1100.kpack", Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
	}
	tw.Close()
	f.Close()
	fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, base, filepath.Join(tmp, "dup.tar")), "KPL004")
	var cross, dup int
	for _, f := range fs {
		switch {
		case f.Related[0].Input == 0 && f.Location.Input == 1:
			cross++
		case f.Related[0].Input == 1 && f.Location.Input == 1 && strings.Contains(f.Message, "twice"):
			dup++
		}
	}
	if cross != 1 || dup != 1 || len(fs) != 2 {
		t.Fatalf("want one cross-input and one in-input KPL004, got %+v", fs)
	}
}

// TestInputLabel: reports' headers name inputs by the path given when it
// is relative, by the base name when absolute (no machine paths); findings
// keep base names (InputName), so fingerprints do not depend on the
// working directory.
func TestInputLabel(t *testing.T) {
	for _, tc := range []struct{ in, label, name string }{
		{"dist/torch-2.9.whl", "dist/torch-2.9.whl", "torch-2.9.whl"},
		{"./a/../build/dist/", "build/dist", "dist"},
		{"../shared/host", "../shared/host", "host"},
		{"/srv/ci/run-7/dist", "dist", "dist"},
	} {
		if got := lint.InputLabel(0, tc.in); got != tc.label {
			t.Errorf("InputLabel(%q) = %q, want %q", tc.in, got, tc.label)
		}
		if got := lint.InputName(0, tc.in); got != tc.name {
			t.Errorf("InputName(%q) = %q, want %q", tc.in, got, tc.name)
		}
	}
	if got, want := lint.InputLabel(0, "."), lint.InputName(0, "."); got != want {
		t.Errorf("InputLabel(.) = %q, want the working directory's name %q", got, want)
	}
}
