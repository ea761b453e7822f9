package lint_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
)

// TestDeepDecompressionFailureChangesTheLoad: with --deep a corrupt frame
// in the xnack- overlay makes the legacy loader return
// DECOMPRESSION_FAILED at once while the fall-through loader remembers it
// and loads the bare archive's copy: KPL002 names the error, KPL005 the
// archive. Without --deep the TOC looks fine and nothing is reported.
func TestDeepDecompressionFailureChangesTheLoad(t *testing.T) {
	overlay := kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{
		{Key: "bin/app#0", Arch: "gfx90a:xnack-", Data: codeobjtest.CodeObject("gfx90a:xnack-", "k0")},
	}})
	magic := []byte{0x28, 0xb5, 0x2f, 0xfd}
	i := bytes.Index(overlay, magic)
	if i < 0 {
		t.Fatal("no zstd frame in the overlay")
	}
	overlay[i] = 0 // the frame header no longer parses
	dir := testtree.Write(t, map[string][]byte{
		"bin/app":                      binaryELF("bin/app", "../.kpack/g_@GFXARCH@.kpack", 1),
		".kpack/g_gfx90a:xnack-.kpack": overlay,
		".kpack/g_gfx90a.kpack": kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{
			{Key: "bin/app#0", Arch: "gfx90a", Data: codeobjtest.CodeObject("gfx90a", "k0")},
		}}),
	})
	opt := lint.Config{Agents: []string{"gfx90a:sramecc+:xnack-"}, Targets: []string{"gfx90a"}}
	if fs := runCheck(t, opt, dir); len(fs) != 0 {
		t.Fatalf("TOC-only check: want no findings, got %+v", fs)
	}
	opt.Deep = true
	fs := runCheck(t, opt, dir)
	shadow := byRule(fs, "KPL002")
	if len(shadow) != 1 || shadow[0].KpackError != "KPACK_ERROR_DECOMPRESSION_FAILED" {
		t.Fatalf("want KPL002 with DECOMPRESSION_FAILED, got %+v", fs)
	}
	bad := byRule(fs, "KPL005")
	if len(bad) != 1 || bad[0].Location.Path != ".kpack/g_gfx90a:xnack-.kpack" {
		t.Fatalf("want KPL005 on the overlay, got %+v", bad)
	}
	opt.Loader = "legacy"
	un := byRule(runCheck(t, opt, dir), "KPL001")
	if len(un) != 1 || !strings.Contains(un[0].Message, "DECOMPRESSION_FAILED") {
		t.Fatalf("legacy: want KPL001 DECOMPRESSION_FAILED, got %+v", un)
	}
}

// TestDeepCodeObjectMismatch is TheRock PR 5668: an xnack- code object
// filed under the bare target is served to xnack+ agents.
func TestDeepCodeObjectMismatch(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		"bin/app": binaryELF("bin/app", "../.kpack/g_@GFXARCH@.kpack", 1),
		".kpack/g_gfx90a.kpack": kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{
			{Key: "bin/app#0", Arch: "gfx90a", Data: codeobjtest.CodeObject("gfx90a:xnack-", "k0")},
		}}),
	})
	fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx90a"}, Deep: true}, dir), "KPL009")
	if len(fs) != 1 {
		t.Fatalf("want one KPL009, got %+v", fs)
	}
	if got := strings.Join(fs[0].Agents, ","); got != "gfx90a:sramecc+:xnack+,gfx90a:sramecc-:xnack+" {
		t.Errorf("agents = %s, want the xnack+ agents", got)
	}
	if !strings.Contains(fs[0].Message, "hipErrorInvalidImage") {
		t.Errorf("message: %s", fs[0].Message)
	}
}

// TestDeepFrameChain: a zstd frame that runs past zstd_size fails
// kpack_open, which walks every frame's size prefix. check reads only the
// TOC and frame count, so the overlay opens and serves its kernel; --deep
// walks the chain, reports the archive as not opening (KPL005) and loads
// from the bare archive, as the runtime does.
func TestDeepFrameChain(t *testing.T) {
	overlay := kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{
		{Key: "bin/app#0", Arch: "gfx90a:xnack-", Data: codeobjtest.CodeObject("gfx90a:xnack-", "k0")},
	}, Mutate: func(toc map[string]any) { toc["zstd_size"] = toc["zstd_size"].(int) - 1 }})
	dir := testtree.Write(t, map[string][]byte{
		"bin/app":                      binaryELF("bin/app", "../.kpack/g_@GFXARCH@.kpack", 1),
		".kpack/g_gfx90a:xnack-.kpack": overlay,
		".kpack/g_gfx90a.kpack": kpacktest.Build(kpacktest.Spec{Group: "g", Scheme: kpack.SchemeZstd, Kernels: []kpacktest.Kernel{
			{Key: "bin/app#0", Arch: "gfx90a", Data: codeobjtest.CodeObject("gfx90a", "k0")},
		}}),
	})
	opt := lint.Config{Agents: []string{"gfx90a:sramecc+:xnack-"}, Targets: []string{"gfx90a"}, Loader: "legacy"}
	if fs := runCheck(t, opt, dir); len(fs) != 0 {
		t.Fatalf("TOC-only check: want no findings, got %+v", fs)
	}
	opt.Deep = true
	fs := runCheck(t, opt, dir)
	if len(fs) != 1 || fs[0].RuleID != "KPL005" || fs[0].Location.Path != ".kpack/g_gfx90a:xnack-.kpack" ||
		!strings.Contains(fs[0].Message, "does not open") || !strings.Contains(fs[0].Message, "runs past the end of the zstd blob") {
		t.Fatalf("--deep: want one KPL005 on the overlay (does not open), got %+v", fs)
	}
}
