package lint_test

import (
	"encoding/binary"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
)

// runCheck loads the inputs as the CLI does (compressed tarballs keep
// archives, host binaries and, with Deep, lazy Tensile indexes) and checks
// them.
func runCheck(t *testing.T, opt lint.Config, inputs ...string) []finding.Finding {
	t.Helper()
	want := func(p string, head []byte) bool {
		return model.Wanted(p, head) || (opt.Deep && kerneldb.IsLazyIndex(p))
	}
	tree, err := vfs.Open(inputs, vfs.Options{Want: want})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	opt.Inputs = inputs
	res, err := lint.Run(model.Load(tree), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings
}

func byRule(fs []finding.Finding, id string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.RuleID == id {
			out = append(out, f)
		}
	}
	return out
}

func zstdArchive(group, arch, name string, n int) []byte {
	return kpacktest.Build(kpacktest.Spec{Group: group, Scheme: kpack.SchemeZstd, Kernels: kernels(name, n, arch)})
}

func binaryELF(name, search string, n int) []byte {
	return hostbintest.ELF(hostbintest.RefBytes(name, search), hostbintest.HIPK(n))
}

// TestMissingArchiveAggregates: 5,000 kernels of one binary with no archive
// for one target are one KPL006 finding listing every kernel key.
func TestMissingArchiveAggregates(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		"lib/libsparse.so":                    binaryELF("lib/libsparse.so", ".kpack/sparse_lib_@GFXARCH@.kpack", 5000),
		"lib/.kpack/sparse_lib_gfx1100.kpack": zstdArchive("sparse_lib", "gfx1100", "lib/libsparse.so", 5000),
	})
	fs := runCheck(t, lint.Config{Targets: []string{"gfx1100", "gfx1151"}}, dir)
	missing := byRule(fs, "KPL006")
	if len(fs) != 1 || len(missing) != 1 {
		t.Fatalf("got %d findings (%d KPL006), want exactly one KPL006: %+v", len(fs), len(missing), fs)
	}
	f := missing[0]
	if len(f.Kernels) != 5000 || f.Kernels[4999] != "lib/libsparse.so#4999" {
		t.Errorf("kernels: %d, last %q", len(f.Kernels), f.Kernels[len(f.Kernels)-1])
	}
	if strings.Join(f.Agents, ",") != "gfx1151" || f.KpackError != "KPACK_ERROR_ARCHIVE_NOT_FOUND" {
		t.Errorf("agents %v, error %s", f.Agents, f.KpackError)
	}
	for _, want := range []string{"lib/libsparse.so#0-4999", "lib/.kpack/sparse_lib_gfx1151.kpack", "error 13"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message lacks %q: %s", want, f.Message)
		}
	}
	if f.Location.Path != "lib/libsparse.so" || f.Location.Region == nil {
		t.Errorf("location %+v", f.Location)
	}
}

// TestAgentsAggregate: agents failing the same way (same trace) share one
// finding; agents failing differently get their own.
func TestAgentsAggregate(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		"bin/app":                      binaryELF("bin/app", "../.kpack/g_@GFXARCH@.kpack", 2),
		".kpack/g_gfx90a.kpack":        zstdArchive("g", "gfx90a", "bin/app", 2),
		".kpack/g_gfx90a:xnack-.kpack": zstdArchive("g", "gfx90a:xnack-", "bin/app", 1),
	})
	fs := runCheck(t, lint.Config{Targets: []string{"gfx90a"}}, dir)
	shadow := byRule(fs, "KPL002")
	if len(fs) != 1 || len(shadow) != 1 {
		t.Fatalf("want one KPL002, got %+v", fs)
	}
	if got := strings.Join(shadow[0].Agents, ","); got != "gfx90a:sramecc+:xnack-,gfx90a:sramecc-:xnack-" {
		t.Errorf("agents = %s", got)
	}
	if got := strings.Join(shadow[0].Kernels, ","); got != "bin/app#1" {
		t.Errorf("kernels = %s", got)
	}
	legacy := runCheck(t, lint.Config{Targets: []string{"gfx90a"}, Loader: "legacy"}, dir)
	if len(byRule(legacy, "KPL001")) != 1 || len(byRule(legacy, "KPL002")) != 0 {
		t.Errorf("legacy loader: want the same cause as one KPL001, got %+v", legacy)
	}
}

// TestMalformedArchives: every KPL005 case gives one finding naming the
// archive, and a broken archive never stops the run.
func TestMalformedArchives(t *testing.T) {
	good := zstdArchive("g", "gfx1100", "bin/app", 1)
	badMagic := append([]byte("XPAK"), good[4:]...)
	badVersion := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(badVersion[4:], 7)
	pastEOF := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(pastEOF[8:], uint64(len(good)+10))
	cases := map[string]struct {
		data []byte
		want string
	}{
		"magic":      {badMagic, "does not open"},
		"version":    {badVersion, "UNSUPPORTED_VERSION"},
		"toc offset": {pastEOF, "does not open"},
		"truncated":  {good[:40], "does not open"},
		"string ordinal": {kpacktest.Build(kpacktest.Spec{Group: "g", Kernels: kernels("bin/app", 1, "gfx1100"), Mutate: func(toc map[string]any) {
			toc["toc"].(map[string]any)["bin/app#0"].(map[string]any)["gfx1100"].(map[string]any)["ordinal"] = "0"
		}}), "ordinal"},
		"unknown scheme": {kpacktest.Build(kpacktest.Spec{Group: "g", Kernels: kernels("bin/app", 1, "gfx1100"), Mutate: func(toc map[string]any) {
			toc["compression_scheme"] = "lz4"
		}}), "compression_scheme"},
		"undeclared arch": {kpacktest.Build(kpacktest.Spec{Group: "g", Arches: []string{"gfx1101"}, Kernels: kernels("bin/app", 1, "gfx1100")}), "gfx_arches"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := testtree.Write(t, map[string][]byte{"x/.kpack/g_gfx1100.kpack": tc.data})
			fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir), "KPL005")
			if len(fs) != 1 {
				t.Fatalf("want one KPL005, got %d", len(fs))
			}
			if fs[0].Location.Path != "x/.kpack/g_gfx1100.kpack" || !strings.Contains(fs[0].Message+fs[0].KpackError, tc.want) {
				t.Errorf("finding %q at %s lacks %q", fs[0].Message, fs[0].Location.Path, tc.want)
			}
		})
	}
}

func TestInvalidReference(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		"bin/noref":   hostbintest.ELF(nil, hostbintest.HIPK(2)),
		"bin/nopath":  hostbintest.ELF(kpacktest.Msgpack(map[string]any{"kernel_name": "bin/nopath"}), hostbintest.HIPK(1)),
		"bin/abs":     binaryELF("bin/abs", "/opt/rocm/.kpack/g_@GFXARCH@.kpack", 1),
		"bin/escape":  binaryELF("bin/escape", "../../.kpack/g_@GFXARCH@.kpack", 1),
		"bin/garbage": hostbintest.ELF([]byte{0xc1, 0xff, 0x00}, hostbintest.HIPK(1)),
		"bin/types":   hostbintest.ELF(kpacktest.Msgpack(map[string]any{"kernel_name": 7, "kpack_search_paths": "x"}), hostbintest.HIPK(1)),
		"bin/empty":   hostbintest.ELF(kpacktest.Msgpack(map[string]any{"kernel_name": "bin/empty", "kpack_search_paths": []any{}}), hostbintest.HIPK(1)),
		"bin/nohipk":  hostbintest.ELF(hostbintest.RefBytes("bin/nohipk", "../.kpack/g_@GFXARCH@.kpack"), nil),
	})
	fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir), "KPL007")
	got := map[string]finding.Level{}
	for _, f := range fs {
		got[f.Location.Path] = f.Level
	}
	want := map[string]finding.Level{"bin/noref": "error", "bin/nopath": "error", "bin/abs": "warning", "bin/escape": "error",
		"bin/garbage": "error", "bin/types": "error", "bin/empty": "error", "bin/nohipk": "error"}
	if len(fs) != len(want) {
		t.Errorf("got %d KPL007 findings, want %d", len(fs), len(want))
	}
	for p, lvl := range want {
		if got[p] != lvl {
			t.Errorf("%s: level %q, want %q (all: %v)", p, got[p], lvl, got)
		}
	}
}

func TestTargetsAndNames(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		".kpack/g_gfx942.kpack": zstdArchive("g", "gfx90a", "k", 1),
	})
	// policy.Parse rejects the invalid target (exit 2 in the CLI); a
	// hand-built policy still gets KPL010 instead of a silent skip.
	if _, err := policy.Parse([]byte("variants: {release: {targets: [gfx90a, gfx1100:xnack+]}}")); err == nil {
		t.Fatal("policy.Parse accepted gfx1100:xnack+")
	}
	pol := &policy.Policy{Variants: map[string]*policy.Variant{"release": {Targets: []string{"gfx90a", "gfx1100:xnack+"}}}}
	fs := byRule(runCheck(t, lint.Config{Policy: pol}, dir), "KPL010")
	if len(fs) != 2 {
		t.Fatalf("want 2 KPL010 (policy target, file-name tag), got %+v", fs)
	}
	var msgs []string
	for _, f := range fs {
		msgs = append(msgs, f.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{`"gfx1100:xnack+"`, `the file-name tag gfx942 is a valid target ID but names a different target than gfx_arches [gfx90a]`} {
		if !strings.Contains(all, want) {
			t.Errorf("no KPL010 mentions %s:\n%s", want, all)
		}
	}
	if strings.Contains(all, "LLVM rejects") {
		t.Errorf("a valid file-name tag is worded as an ID LLVM rejects:\n%s", all)
	}
}

func TestOverlayCollisionAndOrphans(t *testing.T) {
	base := testtree.Write(t, map[string][]byte{
		"lib/libx.so":                binaryELF("lib/libx.so", ".kpack/x_@GFXARCH@.kpack", 1),
		"lib/.kpack/x_gfx1100.kpack": zstdArchive("x", "gfx1100", "lib/libx.so", 3),
	})
	device := testtree.Write(t, map[string][]byte{
		"lib/.kpack/x_gfx1100.kpack": zstdArchive("x", "gfx1100", "lib/libx.so", 2),
	})
	fs := runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, base, device)
	coll := byRule(fs, "KPL004")
	if len(coll) != 1 || coll[0].Location.Input != 1 || coll[0].Location.Path != "lib/.kpack/x_gfx1100.kpack" {
		t.Fatalf("want one KPL004 at input 2, got %+v", coll)
	}
	orphans := byRule(fs, "KPL008")
	if len(orphans) != 1 || strings.Join(orphans[0].Kernels, ",") != "lib/libx.so#1" || orphans[0].Level != finding.LevelNote {
		t.Errorf("orphans = %+v", orphans)
	}
}

// TestArchiveOnlyGroup: archives with no host binary are checked under
// their TOC keys with <dir>/<group>_@GFXARCH@.kpack.
func TestArchiveOnlyGroup(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		".kpack/g_gfx1100.kpack": zstdArchive("g", "gfx1100", "lib/liby.so", 2),
	})
	if fs := runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir); len(fs) != 0 {
		t.Errorf("clean archive-only group: %+v", fs)
	}
	fs := runCheck(t, lint.Config{Targets: []string{"gfx1100", "gfx1101"}}, dir)
	if m := byRule(fs, "KPL006"); len(m) != 1 || m[0].Agents[0] != "gfx1101" {
		t.Errorf("want KPL006 for gfx1101, got %+v", fs)
	}
}

func TestRuleLevels(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "scenarios", "torch-gfx90a-split", "tree")
	pol, err := policy.Parse([]byte("rules: {KPL002: {level: error}}"))
	if err != nil {
		t.Fatal(err)
	}
	fs := runCheck(t, lint.Config{Policy: pol, Targets: []string{"gfx90a"}}, dir)
	if len(fs) != 2 || fs[0].Level != finding.LevelError {
		t.Fatalf("KPL002 raised to error: %+v", fs)
	}
	pol, _ = policy.Parse([]byte("rules: {KPL002: {level: off}}"))
	if fs := runCheck(t, lint.Config{Policy: pol, Targets: []string{"gfx90a"}}, dir); len(fs) != 0 {
		t.Errorf("KPL002 off: %d findings", len(fs))
	}
}

var _ = strconv.Itoa

// TestBrokenHostBinaryIsReported: a truncated kpack'd binary is a KPL007
// finding, never silently skipped (which would hide its missing kernels).
func TestBrokenHostBinaryIsReported(t *testing.T) {
	elf := binaryELF("lib/libx.so", ".kpack/x_@GFXARCH@.kpack", 2)
	dir := testtree.Write(t, map[string][]byte{
		"lib/libx.so":                elf[:len(elf)-40],
		"lib/.kpack/x_gfx1100.kpack": zstdArchive("x", "gfx1100", "lib/libx.so", 1),
	})
	fs := byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir), "KPL007")
	if len(fs) != 1 || fs[0].Location.Path != "lib/libx.so" || !strings.Contains(fs[0].Message, "cannot be parsed") {
		t.Fatalf("want one KPL007 for the truncated binary, got %+v", fs)
	}
}

// TestInvalidArchiveTargetWithoutPolicy: with no policy and no --target the
// targets come from gfx_arches; an invalid one there is the archive's
// KPL010, not a policy finding.
func TestInvalidArchiveTargetWithoutPolicy(t *testing.T) {
	dir := testtree.Write(t, map[string][]byte{
		".kpack/g_gfx9999.kpack": zstdArchive("g", "gfx9999", "k", 1),
		".kpack/g_gfx1100.kpack": zstdArchive("g", "gfx1100", "k", 1),
	})
	fs := byRule(runCheck(t, lint.Config{}, dir), "KPL010")
	if len(fs) != 1 || fs[0].Location.Path != ".kpack/g_gfx9999.kpack" || fs[0].Location.Input != 0 {
		t.Fatalf("want one KPL010 on the archive, got %+v", fs)
	}
}

// TestOrphansAcrossGroups: KPL008 takes the entries of a group's own
// binaries from prepare's marks and looks the rest up among every binary's
// keys, so a key of group y's archive that a binary of group x loads is
// no orphan, while keys no binary loads are, in both groups.
func TestOrphansAcrossGroups(t *testing.T) {
	mixed := append(kernels("lib/liby.so", 3, "gfx1100"), kernels("lib/libx.so", 2, "gfx1100")...)
	dir := testtree.Write(t, map[string][]byte{
		"lib/libx.so":                binaryELF("lib/libx.so", ".kpack/x_@GFXARCH@.kpack", 2),
		"lib/liby.so":                binaryELF("lib/liby.so", ".kpack/y_@GFXARCH@.kpack", 2),
		"lib/.kpack/x_gfx1100.kpack": zstdArchive("x", "gfx1100", "lib/libx.so", 4),
		"lib/.kpack/y_gfx1100.kpack": kpacktest.Build(kpacktest.Spec{Group: "y", Scheme: kpack.SchemeZstd, Kernels: mixed}),
	})
	var got []string
	for _, f := range byRule(runCheck(t, lint.Config{Targets: []string{"gfx1100"}}, dir), "KPL008") {
		got = append(got, f.Group+":"+strings.Join(f.Kernels, ","))
	}
	if want := []string{"x:lib/libx.so#2,lib/libx.so#3", "y:lib/liby.so#2"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("orphans %q, want %q", got, want)
	}
}
