package lint_test

import (
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/testutil/testtree"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

const hipPrefix = "hipv4-amdgcn-amd-amdhsa--"

// embeddedBundle is an uncompressed offload bundle: the host entry, then
// one HIP entry per (entry target, code-object target) pair.
func embeddedBundle(pairs ...[2]string) []byte {
	entries := []hostbintest.Entry{{ID: hostbintest.HostEntry}}
	for _, p := range pairs {
		data := []byte("not an ELF")
		if p[1] != "" {
			data = codeobjtest.CodeObject(p[1], strings.Repeat("x", 4000))
		}
		entries = append(entries, hostbintest.Entry{ID: hipPrefix + p[0], Data: data})
	}
	return hostbintest.BundleOf(entries...)
}

// TestEmbeddedDeep: --deep decodes every HIP entry of every embedded
// bundle, uncompressed and CCOB (zstd, zlib), within --deep-memory, and
// finds an entry whose code object is for another target than its ID
// (KPL009), as the same check on an archive does; consistent bundles give
// no KPL009, and without --deep nothing is decoded.
func TestEmbeddedDeep(t *testing.T) {
	good := embeddedBundle([2]string{"gfx1030", "gfx1030"}, [2]string{"gfx1100", "gfx1100"})
	mixed := embeddedBundle([2]string{"gfx1030", "gfx1100"}, [2]string{"gfx1100", "gfx1100"})
	featured := embeddedBundle([2]string{"gfx90a:xnack-", "gfx90a:xnack+"})
	junk := embeddedBundle([2]string{"gfx1030", ""})
	for _, tc := range []struct {
		name    string
		bundles [][]byte
		deep    bool
		memory  int64
		targets []string
		want    []string // KPL009 message parts; nil: no KPL009
		agents  string
	}{
		{"consistent uncompressed", [][]byte{good}, true, 0, []string{"gfx1030", "gfx1100"}, nil, ""},
		{"consistent ccob", [][]byte{hostbintest.Compress(false, good), hostbintest.Compress(true, good)}, true, 0, []string{"gfx1030"}, nil, ""},
		{"mismatch uncompressed", [][]byte{mixed}, true, 0, []string{"gfx1030", "gfx1100"},
			[]string{"lib/libx.so[embedded]#0 (embedded device code of lib/libx.so, not kpack): the offload-bundle entry hipv4-amdgcn-amd-amdhsa--gfx1030 holds a code object whose ELF header says gfx1100, another processor",
				"HIP picks such entries by their ID for gfx1030 and rejects the code object there with hipErrorInvalidImage"}, "gfx1030"},
		{"mismatch ccob zstd", [][]byte{hostbintest.Compress(false, mixed)}, true, 0, []string{"gfx1030"},
			[]string{"entry hipv4-amdgcn-amd-amdhsa--gfx1030 holds a code object whose ELF header says gfx1100"}, "gfx1030"},
		{"mismatch ccob zlib, two wrappers", [][]byte{hostbintest.Compress(true, mixed), mixed}, true, 0, []string{"gfx1030"},
			[]string{"lib/libx.so[embedded]#0-1 (embedded"}, "gfx1030"},
		{"mismatch, not targeted", [][]byte{mixed}, true, 0, []string{"gfx1100"},
			[]string{"ELF header says gfx1100, another processor. Fix:"}, ""},
		{"mismatch within a tiny memory budget (header only)", [][]byte{mixed}, true, 1024, []string{"gfx1030"},
			[]string{"ELF header says gfx1100, another processor"}, "gfx1030"},
		{"feature contradiction", [][]byte{featured}, true, 0, []string{"gfx90a:xnack-"},
			[]string{"ELF header says gfx90a:xnack+, contradicting a feature of the entry ID"}, "gfx90a:sramecc+:xnack-,gfx90a:sramecc-:xnack-"},
		{"not a code object", [][]byte{junk}, true, 0, []string{"gfx1030"},
			[]string{"offload-bundle entries hold no AMDGPU HSA code object", "not an ELF file"}, "gfx1030"},
		{"no --deep", [][]byte{mixed}, false, 0, []string{"gfx1030"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testtree.Write(t, map[string][]byte{"lib/libx.so": hostbintest.EmbeddedELF(tc.bundles, true)})
			cfg := lint.Config{Deep: tc.deep, Targets: tc.targets, DeepOptions: verify.Options{MaxMemory: tc.memory}}
			all := runCheck(t, cfg, dir)
			fs := byRule(all, "KPL009")
			if tc.want == nil {
				if len(fs) > 0 {
					t.Fatalf("unexpected KPL009: %s", fs[0].Message)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one KPL009, got %d: %+v", len(fs), all)
			}
			f := fs[0]
			for _, w := range tc.want {
				if !strings.Contains(f.Message, w) {
					t.Errorf("message lacks %q:\n%s", w, f.Message)
				}
			}
			if got := strings.Join(f.Agents, ","); got != tc.agents {
				t.Errorf("agents %q, want %q", got, tc.agents)
			}
			if f.Location.Path != "lib/libx.so" || f.Level != "" && f.Level != finding.LevelError {
				t.Errorf("location %+v level %s", f.Location, f.Level)
			}
		})
	}
}

// TestEmbeddedOnlyTargets: without a policy or --target, a build whose
// only device code is embedded takes its targets from the bundles' HIP
// entries (the report says so) instead of simulating nothing (KPL010);
// a wrapper lacking one of them is KPL001. A build with archives keeps
// the archives' gfx_arches.
func TestEmbeddedOnlyTargets(t *testing.T) {
	full := hostbintest.Bundle(hostbintest.HostEntry, hipPrefix+"gfx906:xnack-", hipPrefix+"gfx1030")
	part := hostbintest.Bundle(hostbintest.HostEntry, hipPrefix+"gfx1030")
	dir := testtree.Write(t, map[string][]byte{"lib/libx.so": hostbintest.EmbeddedELF([][]byte{full, part}, true)})
	res := runResult(t, lint.Config{}, dir)
	c := res.Context
	if strings.Join(c.Targets, " ") != "gfx1030 gfx906:xnack-" || c.TargetSource != "the embedded offload bundles' entries without a policy" {
		t.Errorf("targets %v from %q", c.Targets, c.TargetSource)
	}
	if len(byRule(res.Findings, "KPL010")) != 0 {
		t.Errorf("KPL010: %+v", res.Findings)
	}
	f := byRule(res.Findings, "KPL001")
	if len(f) != 1 || strings.Join(f[0].Kernels, " ") != "lib/libx.so[embedded]#1" || strings.Join(f[0].Agents, " ") != "gfx906:sramecc+:xnack- gfx906:sramecc-:xnack-" {
		t.Errorf("KPL001: %+v", f)
	}

	withArchive := testtree.Write(t, map[string][]byte{
		"lib/libx.so":                   hostbintest.EmbeddedELF([][]byte{full}, true),
		"lib/.kpack/other_gfx942.kpack": zstdArchive("other", "gfx942", "k", 1),
	})
	if c := runResult(t, lint.Config{}, withArchive).Context; strings.Join(c.Targets, " ") != "gfx942" || !strings.HasPrefix(c.TargetSource, "the archives' gfx_arches") {
		t.Errorf("with an archive: targets %v from %q", c.Targets, c.TargetSource)
	}
}
