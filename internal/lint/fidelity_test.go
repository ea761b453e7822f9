package lint_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/resolver"
)

// Tests of what HIP and each kpack runtime do around the loader (issue 7):
// each names the public report or upstream source it follows.

// TestGenericOnlyBuild is TheRock PR 7372: a build that ships only generic
// archives loads on every member processor, because HIP appends the
// generic target to the arch_list.
func TestGenericOnlyBuild(t *testing.T) {
	const lib = "lib/librocrand.so.1"
	dir := testtree.Write(t, map[string][]byte{
		lib:                                     binaryELF(lib, "../.kpack/rand_lib_@GFXARCH@.kpack", 2),
		".kpack/rand_lib_gfx10-3-generic.kpack": zstdArchive("rand_lib", "gfx10-3-generic", lib, 2),
		".kpack/rand_lib_gfx12-generic.kpack":   zstdArchive("rand_lib", "gfx12-generic", lib, 2),
	})
	if fs := runCheck(t, lint.Config{Targets: []string{"gfx1030", "gfx1201"}}, dir); len(fs) != 0 {
		t.Errorf("gfx1030, gfx1201: want no findings, got %+v", fs)
	}
	// Without --target the archives' gfx_arches are the targets: generic
	// ones expand to their member devices.
	res := runResult(t, lint.Config{}, dir)
	if len(res.Findings) != 0 {
		t.Errorf("no targets: want no findings, got %+v", res.Findings)
	}
	if got := len(res.Context.Agents); got != 9 { // gfx1030-gfx1036, gfx1200, gfx1201
		t.Errorf("agents = %d, want 9", got)
	}
	if !strings.Contains(res.Context.TargetSource, "gfx_arches") || !strings.Contains(res.Context.TargetSource, "without a policy") {
		t.Errorf("target source %q", res.Context.TargetSource)
	}
	miss := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir), "KPL006")
	// The agent is the only device of its process: with HIP newest no
	// ISA loads and the module fails with hipErrorInvalidKernelFile
	// (rocm-systems PR 9167; index 66615623207 ExtractKpackBinary,
	// loaded_code_objects.empty()).
	if len(miss) != 1 || !strings.Contains(miss[0].Message, ".kpack/rand_lib_gfx11-generic.kpack") || miss[0].HIPError != "hipErrorInvalidKernelFile" {
		t.Errorf("gfx1100: want KPL006 that looked for the gfx11-generic archive, got %+v", miss)
	}
}

// TestStrippedPerKernel is rocm-libraries PR 8397: in an ASAN build the
// hipBLASLt extops translation unit is bare gfx942 while the rest of the
// library is gfx942:xnack+. KPL003 names that kernel, with or without owners.
func TestStrippedPerKernel(t *testing.T) {
	const lib = "lib/libhipblaslt.so"
	xnack := kernels(lib, 3, "gfx942:xnack+")
	dir := testtree.Write(t, map[string][]byte{
		lib:                                   binaryELF(lib, "../.kpack/blas_lib_@GFXARCH@.kpack", 4),
		".kpack/blas_lib_gfx942:xnack+.kpack": kpacktest.Build(kpacktest.Spec{Group: "blas_lib", Scheme: kpack.SchemeZstd, Kernels: xnack}),
		".kpack/blas_lib_gfx942.kpack": kpacktest.Build(kpacktest.Spec{Group: "blas_lib", Scheme: kpack.SchemeZstd,
			Kernels: []kpacktest.Kernel{{Key: lib + "#3", Arch: "gfx942", Data: codeobjtest.CodeObject("gfx942", "extops")}}}),
	})
	for _, owners := range []bool{false, true} {
		pol := mustPolicy(t, "variants:\n  asan:\n    targets: [gfx942:xnack+]\n")
		if owners {
			pol = mustPolicy(t, "variants:\n  asan:\n    targets: [gfx942:xnack+]\ngroups:\n  blas_lib:\n    owners:\n      hipBLASLt: [\"lib/libhipblaslt*\"]\n")
		}
		st := byRule(runCheck(t, lint.Config{Policy: pol}, dir), "KPL003")
		if len(st) != 1 || strings.Join(st[0].Kernels, ",") != lib+"#3" ||
			!strings.Contains(st[0].Message, "1 of its 4 kernels for gfx942") || !strings.Contains(st[0].Message, "PR 8397") {
			t.Errorf("owners %v: want one KPL003 on %s#3, got %+v", owners, lib, st)
		}
	}
}

func runResult(t *testing.T, opt lint.Config, inputs ...string) *lint.Result {
	t.Helper()
	res, err := runErr(opt, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func runErr(opt lint.Config, inputs ...string) (*lint.Result, error) {
	tree, err := vfs.Open(inputs, vfs.Options{})
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	opt.Inputs = inputs
	return lint.Run(model.Load(tree), opt)
}

func mustPolicy(t *testing.T, y string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadTOCPerRuntime: SPEC 1. A string ordinal fails the fixed runtime's
// open (the archive is skipped: ARCHIVE_NOT_FOUND when it is the only one)
// and aborts the legacy runtime.
func TestBadTOCPerRuntime(t *testing.T) {
	const app = "bin/app"
	bad := kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: kernels(app, 2, "gfx1100"),
		Mutate: func(m map[string]any) {
			m["toc"].(map[string]any)[app+"#0"].(map[string]any)["gfx1100"].(map[string]any)["ordinal"] = "0"
		}})
	dir := testtree.Write(t, map[string][]byte{
		app:                      binaryELF(app, "../.kpack/g_@GFXARCH@.kpack", 2),
		".kpack/g_gfx1100.kpack": bad,
	})
	fs := runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir)
	if miss := byRule(fs, "KPL006"); len(miss) != 1 || len(byRule(fs, "KPL001")) != 0 {
		t.Errorf("fall-through: want KPL006 only (the archive is skipped), got %+v", fs)
	}
	if m := byRule(fs, "KPL005"); len(m) != 1 || !strings.Contains(m[0].Message, "aborts the process") {
		t.Errorf("want KPL005 naming the legacy abort, got %+v", m)
	}
	un := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}, Loader: "legacy"}, dir), "KPL001")
	if len(un) != 1 || un[0].KpackError != "PROCESS_ABORT" || !strings.Contains(un[0].Message, "the process aborts") ||
		un[0].HIPError != "process abort" {
		t.Errorf("legacy: want KPL001 'the process aborts', got %+v", un)
	}
}

// TestLoaderDisabled: ROCM_KPACK_DISABLE makes every load NOT_IMPLEMENTED
// (8), which HIP turns into hipErrorInvalidImage.
func TestLoaderDisabled(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		"bin/app":                binaryELF("bin/app", "../.kpack/g_@GFXARCH@.kpack", 1),
		".kpack/g_gfx1100.kpack": zstdArchive("g", "gfx1100", "bin/app", 1),
	})
	env, _ := resolver.ParseEnv(map[string]string{resolver.EnvDisable: "1"})
	un := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}, Env: env}, dir), "KPL001")
	if len(un) != 1 || un[0].KpackError != "KPACK_ERROR_NOT_IMPLEMENTED" || un[0].HIPError != "hipErrorInvalidImage" ||
		!strings.Contains(un[0].Message, "unset ROCM_KPACK_DISABLE") {
		t.Errorf("want KPL001 NOT_IMPLEMENTED, got %+v", un)
	}
}

// TestLastErrorWithRepeats: SPEC 4.5 end to end (--deep): the bare gfx900
// archive is a candidate for both arch_list entries, so the fall-through
// loader's last error is its KERNEL_NOT_FOUND, not the overlay's corrupt
// frame.
func TestLastErrorWithRepeats(t *testing.T) {
	const key = "bin/app#0"
	overlay := kpacktest.Build(kpacktest.Spec{Group: "blas_lib", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{
		{Key: key, Arch: "gfx900:xnack+", Data: codeobjtest.CodeObject("gfx900:xnack+", "k0")}}})
	overlay[bytes.Index(overlay, []byte{0x28, 0xb5, 0x2f, 0xfd})] = 0
	dir := testtree.Write(t, map[string][]byte{
		"bin/app": binaryELF("bin/app", "../.kpack/blas_lib_@GFXARCH@.kpack", 1),
		".kpack/blas_lib_gfx900.kpack": kpacktest.Build(kpacktest.Spec{Group: "blas_lib", Scheme: kpack.SchemeZstd,
			Arches: []string{"gfx900"}, Kernels: []kpacktest.Kernel{{Key: "other#0", Arch: "gfx900", Data: codeobjtest.CodeObject("gfx900", "o")}}}),
		".kpack/blas_lib_gfx900:xnack+.kpack": overlay,
	})
	pol := mustPolicy(t, "variants:\n  v:\n    targets: [gfx900]\n    arch_list:\n      gfx900: [\"gfx900:xnack+\"]\n")
	opt := lint.Config{Policy: pol, Agents: []string{"gfx900:xnack-"}, Deep: true}
	un := byRule(runCheck(t, opt, dir), "KPL001")
	if len(un) != 1 || un[0].KpackError != "KPACK_ERROR_KERNEL_NOT_FOUND" {
		t.Errorf("want KPL001 KERNEL_NOT_FOUND (last candidate), got %+v", un)
	}
}

// TestBareISAAgents: gfx90c devices report the bare ISA (rocm-libraries PR
// 11211), which accepts only code objects built without feature settings.
func TestBareISAAgents(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		"bin/app":                      binaryELF("bin/app", "../.kpack/g_@GFXARCH@.kpack", 1),
		".kpack/g_gfx90c:xnack-.kpack": zstdArchive("g", "gfx90c:xnack-", "bin/app", 1),
	})
	res := runResult(t, lint.Config{Targets: []string{"gfx90c"}}, dir)
	if len(res.Context.Agents) != 1 || res.Context.Agents[0].ISA != "gfx90c" ||
		strings.Join(res.Context.Agents[0].ArchList, ",") != "gfx90c,gfx9-generic" {
		t.Fatalf("agents %+v", res.Context.Agents)
	}
	if miss := byRule(res.Findings, "KPL006"); len(miss) != 1 || strings.Join(miss[0].Agents, ",") != "gfx90c" {
		t.Errorf("want KPL006 on gfx90c (the xnack- archive is never looked for), got %+v", res.Findings)
	}
	if _, err := runErr(lint.Config{Targets: []string{"gfx90c:xnack+"}}, dir); err == nil || !strings.Contains(err.Error(), "bare ISA") {
		t.Errorf("--target gfx90c:xnack+: err = %v, want a bare-ISA usage error", err)
	}
}

// TestUntransformedBinary is rocm-libraries#8660: a rocwmma test binary
// shipped with embedded code for gfx90a only next to archives holding its
// gfx942 kernels: HIP never reads the archives.
func TestUntransformedBinary(t *testing.T) {
	const app = "bin/rocwmma/vector_iterator_test"
	bundle := hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-")
	dir := testtree.Write(t, map[string][]byte{
		app:                                hostbintest.EmbeddedELF([][]byte{bundle, bundle, bundle}, true),
		".kpack/rocwmma_test_gfx942.kpack": zstdArchive("rocwmma_test", "gfx942", app, 3),
	})
	fs := runCheck(t, lint.Config{Targets: []string{"gfx942"}}, dir)
	ut := byRule(fs, "KPL011")
	if len(ut) != 1 || ut[0].Group != "rocwmma_test" || strings.Join(ut[0].Kernels, ",") != app+"#0,"+app+"#1,"+app+"#2" {
		t.Errorf("want one KPL011 for %s, got %+v", app, ut)
	}
	un := byRule(fs, "KPL001")
	// The only device without a code object: hipErrorInvalidImage, the
	// initial status of ExtractFatBinaryUsingCOMGR (index 66615623207).
	if len(un) != 1 || len(un[0].Agents) != 4 || un[0].HIPError != "hipErrorInvalidImage" ||
		!strings.Contains(un[0].Message, "gfx90a:xnack- only") {
		t.Errorf("want one KPL001 for the embedded code on gfx942, got %+v", un)
	}
	if len(fs) != 2 {
		t.Errorf("want exactly KPL001 and KPL011, got %+v", fs)
	}
	// On gfx90a:xnack- the embedded code loads.
	if fs := runCheck(t, lint.Config{Agents: []string{"gfx90a:sramecc+:xnack-"}}, dir); len(byRule(fs, "KPL001")) != 0 {
		t.Errorf("gfx90a:xnack-: embedded code should load, got %+v", fs)
	}
}

// TestGenericCodeObjectsDeep: --deep decodes generic code objects (v6,
// EF_AMDGPU_GENERIC_VERSION) and accepts them on member agents; one built
// for another family is KPL009.
func TestGenericCodeObjectsDeep(t *testing.T) {
	const lib = "lib/librocrand.so.1"
	arch := func(target, co string) []byte {
		return kpacktest.Build(kpacktest.Spec{Group: "rand_lib", Scheme: kpack.SchemeZstd,
			Kernels: []kpacktest.Kernel{{Key: lib + "#0", Arch: target, Data: codeobjtest.CodeObject(co, "k")}}})
	}
	good := testtree.Write(t, map[string][]byte{
		lib:                                     binaryELF(lib, "../.kpack/rand_lib_@GFXARCH@.kpack", 1),
		".kpack/rand_lib_gfx10-3-generic.kpack": arch("gfx10-3-generic", "gfx10-3-generic"),
	})
	if fs := runCheck(t, lint.Config{Targets: []string{"gfx1030", "gfx1036"}, Deep: true}, good); len(fs) != 0 {
		t.Errorf("gfx1030: want no findings, got %+v", fs)
	}
	bad := testtree.Write(t, map[string][]byte{
		lib:                                   binaryELF(lib, "../.kpack/rand_lib_@GFXARCH@.kpack", 1),
		".kpack/rand_lib_gfx12-generic.kpack": arch("gfx12-generic", "gfx11-generic"),
	})
	mm := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1201"}, Deep: true}, bad), "KPL009")
	if len(mm) != 1 || !strings.Contains(mm[0].Message, "gfx11-generic") || strings.Join(mm[0].Agents, ",") != "gfx1201" {
		t.Errorf("gfx1201: want KPL009 for the gfx11-generic object, got %+v", mm)
	}
}

// TestEmbeddedBundlesJudged: a bundle that does not read fails the module
// load on every device (hipErrorInvalidImage, clr hip_fatbin.cpp); SPIR-V
// loads on any device; embedded wrappers are named apart from kpack keys.
func TestEmbeddedBundlesJudged(t *testing.T) {
	good := hostbintest.Bundle(hostbintest.HostEntry, "hipv4-amdgcn-amd-amdhsa--gfx1100")
	spirv := hostbintest.Bundle(hostbintest.HostEntry, "hipv4-spirv64-amd-amdhsa--amdgcnspirv")
	broken := []byte("__CLANG_OFFLOAD_BUNDLE_X_not a bundle")
	dir := testtree.Write(t, map[string][]byte{
		"bin/ok":     hostbintest.EmbeddedELF([][]byte{good, spirv}, false),
		"bin/broken": hostbintest.EmbeddedELF([][]byte{good, broken}, true),
	})
	fs := runCheck(t, lint.Config{Targets: []string{"gfx1100", "gfx1030"}}, dir)
	got := map[string]string{}
	for _, f := range byRule(fs, "KPL001") {
		got[strings.Join(f.Kernels, ",")] = strings.Join(f.Agents, ",") + " " + f.HIPError
	}
	// Each agent is the only device of its process: no code object gives
	// the initial hipErrorInvalidImage of ExtractFatBinaryUsingCOMGR
	// (index 66615623207), like a bundle that does not read.
	want := map[string]string{
		"bin/broken[embedded]#0": "gfx1030 hipErrorInvalidImage",
		"bin/broken[embedded]#1": "gfx1030,gfx1100 hipErrorInvalidImage", // does not read
		"bin/ok[embedded]#0":     "gfx1030 hipErrorInvalidImage",         // #1 is SPIR-V: loads anywhere
	}
	if !reflect.DeepEqual(got, want) || len(fs) != 3 {
		t.Errorf("KPL001 by wrapper = %v, want %v (all findings %+v)", got, want, fs)
	}
}

// TestStrippedOppositeSetting: kernels built for gfx942:xnack+ only, on a
// gfx942:xnack- target, are the other setting, not stripped flags.
func TestStrippedOppositeSetting(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		"bin/app":                      binaryELF("bin/app", "../.kpack/g_@GFXARCH@.kpack", 1),
		".kpack/g_gfx942:xnack+.kpack": zstdArchive("g", "gfx942:xnack+", "bin/app", 1),
	})
	st := byRule(runCheck(t, lint.Config{Targets: []string{"gfx942:xnack-"}}, dir), "KPL003")
	if len(st) != 1 || !strings.Contains(st[0].Message, "for the other feature setting only") ||
		!strings.Contains(st[0].Message, "add gfx942:xnack- to the project's GPU_TARGETS") {
		t.Errorf("want KPL003 naming the other setting, got %+v", st)
	}
}
