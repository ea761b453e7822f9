package lint_test

import (
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb/kerneldbtest"
)

// therock5347Dir is the wheel set modelled on TheRock#5347: the rocm meta
// wheel whose device-all extra (written from one platform's targets)
// requires the device wheels of gfx1100, gfx1101, gfx1151, gfx1200 and
// gfx1201 and none of gfx942 or gfx950, the libraries wheel with a
// kpack'd librocblas, and the gfx1100 device wheel (its archive and
// Tensile files).
const therock5347Dir = "../../testdata/therock-5347"

// therock5347Version is the nightly the issue reports.
const therock5347Version = "7.14.0a20260519"

// therock5347Devices are the targets the meta wheel's extras name.
var therock5347Devices = []string{"gfx1100", "gfx1101", "gfx1151", "gfx1200", "gfx1201"}

// rocmMetadata is the installed METADATA of the rocm meta wheel, as pip
// writes setup.py's install_requires and extras_require (TheRock's
// templates/rocm/setup.py): core unconditionally, the optional packages
// and one device extra per target under their extras, device-all over
// every target.
func rocmMetadata(devices []string) []byte {
	v := therock5347Version
	var b strings.Builder
	b.WriteString("Metadata-Version: 2.4\nName: rocm\nVersion: " + v + "\n")
	b.WriteString("Requires-Dist: rocm-sdk-core==" + v + "\n")
	for _, x := range []string{"libraries", "devel", "profiler"} {
		dist := "rocm-sdk-" + x
		if x == "profiler" {
			dist = "rocm-profiler"
		}
		b.WriteString("Provides-Extra: " + x + "\nRequires-Dist: " + dist + "==" + v + "; extra == \"" + x + "\"\n")
	}
	for _, d := range devices {
		b.WriteString("Provides-Extra: device-" + d + "\nRequires-Dist: rocm-sdk-device-" + d + "==" + v + "; extra == \"device-" + d + "\"\n")
	}
	b.WriteString("Provides-Extra: device-all\n")
	for _, d := range devices {
		b.WriteString("Requires-Dist: rocm-sdk-device-" + d + "==" + v + "; extra == \"device-all\"\n")
	}
	b.WriteString("\nThe ROCm SDK meta package (test wheel).\n")
	return []byte(b.String())
}

// therock5347Wheels are the wheel files of the set by name.
func therock5347Wheels(t *testing.T) map[string][]byte {
	v := therock5347Version
	meta := func(name string, requires ...string) []byte {
		s := "Metadata-Version: 2.4\nName: " + name + "\nVersion: " + v + "\n"
		for _, r := range requires {
			s += "Requires-Dist: " + r + "==" + v + "\n"
		}
		return []byte(s)
	}
	lib := "_rocm_sdk_libraries/lib/librocblas.so.5"
	rocblas := hostbintest.ELFWith(
		hostbintest.ELFSection{Name: hostbin.RefSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 32,
			Data: hostbintest.RefBytes(lib, ".kpack/blas_lib_@GFXARCH@.kpack")},
		hostbintest.ELFSection{Name: hostbin.FatBinSectionELF, Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC | elf.SHF_WRITE, Align: 8,
			Data: hostbintest.WrapperBytes(hostbintest.HIPK(3), 64)},
		hostbintest.ELFSection{Name: ".rodata", Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 16,
			Data: []byte("rocblas_initialize\x00" + kerneldbtest.EnvRocBLAS + "\x00")})
	device := kerneldbtest.New()
	device.AddTensile(kerneldbtest.Tensile{Dir: "_rocm_sdk_libraries/lib/rocblas/library", Arches: []string{"gfx1100"}, Lazy: true, Kernels: 2})
	device.Add("_rocm_sdk_libraries/lib/.kpack/blas_lib_gfx1100.kpack",
		kpacktest.Build(kpacktest.Spec{Group: "blas_lib", Scheme: kpack.SchemeZstd, Kernels: kernels(lib, 3, "gfx1100")}))
	device.Add("rocm_sdk_device_gfx1100-"+v+".dist-info/METADATA", meta("rocm-sdk-device-gfx1100", "rocm-sdk-libraries"))
	var devFiles []pkgbuild.File
	for _, p := range device.Paths() {
		devFiles = append(devFiles, pkgbuild.Reg(p, device.Files[p]))
	}
	return map[string][]byte{
		"rocm-" + v + "-py3-none-any.whl": pkgbuild.Wheel(t, []pkgbuild.File{
			pkgbuild.Reg("rocm_sdk/__init__.py", []byte("")),
			pkgbuild.Reg("rocm-"+v+".dist-info/METADATA", rocmMetadata(therock5347Devices)),
		}),
		"rocm_sdk_libraries-" + v + "-py3-none-linux_x86_64.whl": pkgbuild.Wheel(t, []pkgbuild.File{
			pkgbuild.Reg(lib, rocblas),
			pkgbuild.Reg("rocm_sdk_libraries-"+v+".dist-info/METADATA", meta("rocm-sdk-libraries", "rocm-sdk-core")),
		}),
		"rocm_sdk_device_gfx1100-" + v + "-py3-none-linux_x86_64.whl": pkgbuild.Wheel(t, devFiles),
	}
}

// TestTheRock5347Wheels (TheRock#5347): checked for gfx94X-dcgpu, the set
// has no gfx942 code (KPL006) and no gfx942 Tensile index (KPL013), and
// the cause: the rocm wheel's device-all requires no
// rocm-sdk-device-gfx942, nor does rocm provide device-gfx942 (a KPL013
// error at the rocm wheel's METADATA). With -update it rewrites the set.
func TestTheRock5347Wheels(t *testing.T) {
	if *update {
		if err := os.MkdirAll(therock5347Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range therock5347Wheels(t) {
			if err := os.WriteFile(filepath.Join(therock5347Dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var inputs []string
	for name := range therock5347Wheels(t) {
		inputs = append(inputs, filepath.Join(therock5347Dir, name))
	}
	slices.Sort(inputs)
	fs := runCheck(t, lint.Config{Targets: []string{"gfx94X-dcgpu"}}, inputs...)
	cause := extraFinding(t, fs)
	for _, w := range []string{
		`The rocm wheel's extra device-all (rocm-7.14.0a20260519.dist-info/METADATA), meant for every target, requires no rocm-sdk-device-gfx942: ` +
			`pip install "rocm[device-all]" installs no device code (kpack archives, kernel databases) for gfx942, which the run targets (--target, TheRock family gfx94X-dcgpu (gfx942))`,
		"It provides no extra device-gfx942 either",
		"It is not among the inputs either.",
		"It requires rocm-sdk-device-gfx1100, rocm-sdk-device-gfx1101, rocm-sdk-device-gfx1151, rocm-sdk-device-gfx1200, rocm-sdk-device-gfx1201.",
		"pip install rocm-sdk-device-gfx942)",
	} {
		if !strings.Contains(cause.Message, w) {
			t.Errorf("cause lacks %q:\n%s", w, cause.Message)
		}
	}
	if cause.Level != finding.LevelError || cause.Location.Path != "rocm-7.14.0a20260519.dist-info/METADATA" || cause.Location.Input != 0 ||
		strings.Join(cause.Targets, ",") != "gfx942" || strings.Join(cause.Missing, ",") != "rocm-sdk-device-gfx942" || cause.Library != "rocm" ||
		cause.Subject != "wheel-extra|rocm|device-all|rocm-sdk-device-" {
		t.Errorf("cause %+v", cause)
	}
	if missing := byRule(fs, "KPL006"); len(missing) != 1 || !strings.Contains(missing[0].Message, "_rocm_sdk_libraries/lib/.kpack/blas_lib_gfx942.kpack") {
		t.Errorf("KPL006: %+v", missing)
	}
	var tensile bool
	for _, f := range byRule(fs, "KPL013") {
		tensile = tensile || strings.Contains(f.Message, "rocBLAS") && slices.Contains(f.Agents, "gfx942:sramecc+:xnack-")
	}
	if !tensile {
		t.Errorf("no rocBLAS KPL013 on gfx942: %+v", byRule(fs, "KPL013"))
	}

	// Both MI300 and MI355 families: one finding names both wheels.
	fs = runCheck(t, lint.Config{Targets: []string{"gfx94X-dcgpu", "gfx950-dcgpu", "gfx1100"}}, inputs...)
	cause = extraFinding(t, fs)
	if strings.Join(cause.Missing, ",") != "rocm-sdk-device-gfx942,rocm-sdk-device-gfx950" || strings.Join(cause.Targets, ",") != "gfx942,gfx950" ||
		!strings.Contains(cause.Message, "requires no rocm-sdk-device-gfx942 or rocm-sdk-device-gfx950") ||
		!strings.Contains(cause.Message, "for gfx942 and gfx950, which") || !strings.Contains(cause.Message, "None of them is among the inputs either.") {
		t.Errorf("two families: %+v", cause)
	}
	// gfx110X-dgpu: device-all has gfx1100 and gfx1101, not gfx1102.
	fs = runCheck(t, lint.Config{Targets: []string{"gfx110X-dgpu"}}, inputs...)
	if cause = extraFinding(t, fs); strings.Join(cause.Targets, ",") != "gfx1102" || strings.Join(cause.Missing, ",") != "rocm-sdk-device-gfx1102" {
		t.Errorf("gfx110X-dgpu: %+v", cause)
	}
	// Only targets the extra covers: no finding.
	fs = runCheck(t, lint.Config{Targets: []string{"gfx1100", "gfx1151"}}, inputs...)
	for _, f := range byRule(fs, "KPL013") {
		if strings.Contains(f.Subject, "wheel-extra") {
			t.Errorf("gfx1100 and gfx1151 are covered: %+v", f)
		}
	}
}

// extraFinding is the one KPL013 finding of fs about a wheel extra.
func extraFinding(t *testing.T, fs []finding.Finding) finding.Finding {
	t.Helper()
	var out []finding.Finding
	for _, f := range byRule(fs, "KPL013") {
		if strings.HasPrefix(f.Subject, "wheel-extra|") {
			out = append(out, f)
		}
	}
	if len(out) != 1 {
		t.Fatalf("want one wheel-extra finding, got %+v", out)
	}
	return out[0]
}
