package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/verify"
)

// deepContext writes the archives (path -> spec) to a temp dir, loads the
// build, verifies it deeply and returns a Context with served filled.
func deepContext(t *testing.T, specs map[string]kpacktest.Spec, served map[verify.Key][]string) *Context {
	t.Helper()
	dir := t.TempDir()
	for p, s := range specs {
		kpacktest.WriteFile(t, dir, p, s)
	}
	return contextFor(t, dir, served)
}

func contextFor(t *testing.T, dir string, served map[verify.Key][]string) *Context {
	t.Helper()
	tree, err := vfs.Open([]string{dir}, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := model.Load(tree)
	c := &Context{Build: b, Deep: verify.Verify(b, verify.Options{})}
	c.InitServed(b)
	for k, agents := range served {
		for _, a := range agents {
			serveISA(t, c, k, a)
		}
	}
	return c
}

// serveISA records that the object at k was served to agent isa, adding
// the agent to c.Agents when new.
func serveISA(t *testing.T, c *Context, k verify.Key, isa string) {
	t.Helper()
	i := slices.IndexFunc(c.Agents, func(a *sim.Agent) bool { return a.ISA == isa })
	if i < 0 {
		i = len(c.Agents)
		c.Agents = append(c.Agents, &sim.Agent{ISA: isa})
	}
	a := c.Build.ArchiveAt(k.Archive)
	e, ok := a.Info.Lookup(k.Kernel, k.Arch)
	if !ok {
		t.Fatalf("no entry %v", k)
	}
	c.Serve(a, e.Index, i)
}

func only(fs []finding.Finding, rule string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.RuleID == rule {
			out = append(out, f)
		}
	}
	return out
}

const (
	torchKey  = "lib/libtorch_hip.so#0"
	torchKey1 = "lib/libtorch_hip.so#1"
	xnackOn   = "gfx90a:sramecc+:xnack+"
	xnackOff  = "gfx90a:sramecc+:xnack-"
)

func spec(group string, ks ...kpacktest.Kernel) kpacktest.Spec {
	return kpacktest.Spec{Group: group, Scheme: kpack.SchemeZstd, Kernels: ks}
}

func kernel(key, arch, target, pad string) kpacktest.Kernel {
	return kpacktest.Kernel{Key: key, Arch: arch, Data: codeobjtest.CodeObject(target, pad)}
}

// TheRock PR 5668: xnack- code objects stored under the bare gfx90a key are
// served to an xnack+ agent; HIP rejects them with hipErrorInvalidImage.
func TestKPL009BareKeyServedToXnackOn(t *testing.T) {
	const arch = ".kpack/torch_gfx90a.kpack"
	c := deepContext(t, map[string]kpacktest.Spec{arch: spec("torch",
		kernel(torchKey, "gfx90a", "gfx90a:xnack-", "a"),
		kernel(torchKey1, "gfx90a", "gfx90a:xnack-", "b"))},
		map[verify.Key][]string{
			dk(arch, torchKey, "gfx90a"):  {xnackOn, xnackOff},
			dk(arch, torchKey1, "gfx90a"): {xnackOn},
		})
	fs := only(Run(c), "KPL009")
	if len(fs) != 1 {
		t.Fatalf("findings = %+v", fs)
	}
	f := fs[0]
	if !reflect.DeepEqual(f.Kernels, []string{torchKey, torchKey1}) || !reflect.DeepEqual(f.Agents, []string{xnackOn}) {
		t.Errorf("kernels %v agents %v", f.Kernels, f.Agents)
	}
	for _, want := range []string{"hipErrorInvalidImage", "gfx90a:xnack-", "lib/libtorch_hip.so#0-1", xnackOn} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message lacks %q: %s", want, f.Message)
		}
	}
	if f.Level != finding.LevelError || f.Location.Path != arch || f.Location.Region == nil || f.Group != "torch" {
		t.Errorf("finding = %+v", f)
	}
}

func TestKPL009Causes(t *testing.T) {
	const a = ".kpack/torch_gfx90a:xnack-.kpack"
	const n = ".kpack/torch_gfx942.kpack"
	c := deepContext(t, map[string]kpacktest.Spec{
		a: spec("torch",
			kernel(torchKey, "gfx90a:xnack-", "gfx942", "p"),         // wrong processor
			kernel(torchKey1, "gfx90a:xnack-", "gfx90a:xnack+", "f"), // contradicts xnack-
			kernel("bin/t#0", "gfx90a:xnack-", "gfx90a", "ok"),       // any: fine
			kpacktest.Kernel{Key: "bin/t#1", Arch: "gfx90a:xnack-", Data: []byte("#!/bin/sh\necho not a code object")}),
		n: spec("torch",
			kernel(torchKey, "gfx942", "gfx9-4-generic", "g"), // generic covers gfx942
			kernel(torchKey1, "gfx942", "gfx950", "x")),       // wrong processor
	}, map[verify.Key][]string{
		dk(a, torchKey1, "gfx90a:xnack-"): {xnackOff},
		dk(n, torchKey, "gfx942"):         {"gfx942:sramecc+:xnack-"},
	})
	fs := only(Run(c), "KPL009")
	type got struct{ path, kernels, agents, text string }
	want := []got{
		{a, "bin/t#1", "", "are not AMDGPU HSA code objects"},
		{a, torchKey, "", "stored under gfx90a:xnack- but their ELF headers say gfx942, another processor"},
		{a, torchKey1, xnackOff, "ELF headers say gfx90a:xnack+, contradicting"},
		{n, torchKey1, "", "stored under gfx942 but their ELF headers say gfx950"},
	}
	var have []got
	for _, f := range fs {
		have = append(have, got{f.Location.Path, strings.Join(f.Kernels, ","), strings.Join(f.Agents, ","), f.Message})
	}
	if len(have) != len(want) {
		t.Fatalf("findings:\n%+v", have)
	}
	for i, w := range want {
		h := have[i]
		if h.path != w.path || h.kernels != w.kernels || h.agents != w.agents || !strings.Contains(h.text, w.text) {
			t.Errorf("finding %d = %+v\nwant %+v", i, h, w)
		}
	}
	subjects := map[string]bool{}
	for _, f := range fs {
		if subjects[f.Subject] {
			t.Errorf("duplicate subject %q", f.Subject)
		}
		subjects[f.Subject] = true
	}
}

func TestKPL009GenericServedToGfx942(t *testing.T) {
	const n = ".kpack/torch_gfx942.kpack"
	c := deepContext(t, map[string]kpacktest.Spec{n: spec("torch", kernel(torchKey, "gfx942", "gfx9-4-generic", ""))},
		map[verify.Key][]string{dk(n, torchKey, "gfx942"): {"gfx942:sramecc+:xnack-", "gfx942:sramecc-:xnack+"}})
	if fs := checkCodeObjects(c); len(fs) != 0 {
		t.Errorf("findings = %+v", fs)
	}
	// Served to a gfx1100 agent (a hand-made mistake), it does not fit.
	serveISA(t, c, dk(n, torchKey, "gfx942"), "gfx1100")
	fs := checkCodeObjects(c)
	if len(fs) != 1 || !reflect.DeepEqual(fs[0].Agents, []string{"gfx1100"}) {
		t.Errorf("findings = %+v", fs)
	}
}

func TestKPL009NeedsDeep(t *testing.T) {
	c := deepContext(t, map[string]kpacktest.Spec{"x_gfx942.kpack": spec("x", kernel("k#0", "gfx942", "gfx950", ""))}, nil)
	c.Deep = nil
	if fs := append(checkCodeObjects(c), checkDeepProblems(c)...); len(fs) != 0 {
		t.Errorf("findings without --deep: %+v", fs)
	}
	if fs := checkDuplicates(c); len(fs) != 0 {
		t.Errorf("duplicates without --deep: %+v", fs)
	}
}

// A corrupted frame is reported under KPL005 next to the TOC-level check.
func TestKPL005DeepProblems(t *testing.T) {
	dir := t.TempDir()
	s := spec("fft_test", kernel("bin/rocfft-test#0", "gfx950", "gfx950", strings.Repeat("z", 200)),
		kernel("bin/rocfft-test#1", "gfx950", "gfx950", strings.Repeat("y", 200)))
	p := kpacktest.WriteFile(t, dir, ".kpack/fft_test_gfx950.kpack", s)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	size0 := int(b[68]) | int(b[69])<<8
	copy(b[64+4+4+size0+4+7:], []byte{0xff, 0xff, 0xff}) // frame 1: reserved block type
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	c := contextFor(t, dir, nil)
	fs := only(Run(c), "KPL005")
	if len(fs) != 1 {
		t.Fatalf("findings = %+v", fs)
	}
	f := fs[0]
	if f.KpackError != "KPACK_ERROR_DECOMPRESSION_FAILED" || !strings.Contains(f.Message, "toc[bin/rocfft-test#1][gfx950]") ||
		f.Location.Path != filepath.ToSlash(".kpack/fft_test_gfx950.kpack") || len(f.Trace) != 1 {
		t.Errorf("finding = %+v", f)
	}
	if got := c.Deep.Fetch(c.Build.Archives[0], "bin/rocfft-test#1", "gfx950"); got != kpack.DecompressionFailed {
		t.Errorf("Fetch = %v", got)
	}
}

func dk(archive, kernel, arch string) verify.Key {
	return verify.Key{Archive: archive, Kernel: kernel, Arch: arch}
}
