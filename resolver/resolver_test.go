package resolver

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
)

// fakeSource is an in-memory install tree. archives maps a real path to its
// gfx_arches; aliases maps a symlink-like path to another path (resolved
// repeatedly); codes maps (real path, key, arch) to a fetch result. A fetch
// that is not in codes gives KERNEL_NOT_FOUND. Every Open and Fetch is
// recorded.
type fakeSource struct {
	archives map[string][]string
	aliases  map[string]string
	codes    map[fetchKey]kpack.Code
	faults   map[string]string // archives whose TOC only the fixed runtime refuses

	opens   []string
	fetches []fetchKey
}

type fetchKey struct{ path, key, arch string }

func newFake() *fakeSource {
	return &fakeSource{
		archives: map[string][]string{},
		aliases:  map[string]string{},
		codes:    map[fetchKey]kpack.Code{},
		faults:   map[string]string{},
	}
}

// faulty declares an archive at p whose TOC the fixed runtime refuses and
// the legacy runtime aborts on.
func (f *fakeSource) faulty(p string) *fakeSource {
	f.faults[p] = "toc ordinal is a string"
	return f
}

// archive declares an archive at p with arches.
func (f *fakeSource) archive(p string, arches ...string) *fakeSource {
	f.archives[p] = arches
	return f
}

// has makes key fetchable from p for arch with code c.
func (f *fakeSource) has(p, key, arch string, c kpack.Code) *fakeSource {
	f.codes[fetchKey{p, key, arch}] = c
	return f
}

func (f *fakeSource) alias(from, to string) *fakeSource {
	f.aliases[from] = to
	return f
}

func (f *fakeSource) Open(p string) (kpack.Opened, bool) {
	f.opens = append(f.opens, p)
	for i := 0; i < 16; i++ {
		to, ok := f.aliases[p]
		if !ok {
			break
		}
		p = to
	}
	if fault, ok := f.faults[p]; ok {
		return kpack.Opened{Path: p, Fault: fault}, true
	}
	arches, ok := f.archives[p]
	if !ok {
		return kpack.Opened{}, false
	}
	return kpack.Opened{Path: p, Arches: append([]string(nil), arches...)}, true
}

func (f *fakeSource) Fetch(p, key, arch string) kpack.Code {
	k := fetchKey{p, key, arch}
	f.fetches = append(f.fetches, k)
	if c, ok := f.codes[k]; ok {
		return c
	}
	return kpack.KernelNotFound
}

func candStrings(cs []Candidate) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Arch+" "+c.Target+" "+c.Archive)
	}
	return out
}

func traceStrings(st []Step) []string {
	out := make([]string, 0, len(st))
	for _, s := range st {
		out = append(out, fmt.Sprintf("%s %s %d", s.Target, s.Archive, int(s.Code)))
	}
	return out
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}

// SPEC 4.4 / 4.5: for gfx942:sramecc+:xnack- the compatible targets are
// tried most specific first, and the candidate list follows that order no
// matter in which order the archives were opened.
func TestCandidateOrderSPEC44(t *testing.T) {
	src := newFake().
		archive("k/g_gfx942.kpack", "gfx942").
		archive("k/g_gfx942:xnack-.kpack", "gfx942:xnack-").
		archive("k/g_gfx942:sramecc+.kpack", "gfx942:sramecc+").
		archive("k/g_gfx942:sramecc+:xnack-.kpack", "gfx942:sramecc+:xnack-")
	// Search paths list the archives least specific first, so path order
	// differs from candidate order.
	req := Request{
		SearchPaths: []string{
			"k/g_gfx942.kpack",
			"k/g_gfx942:xnack-.kpack",
			"k/g_gfx942:sramecc+.kpack",
			"k/g_gfx942:sramecc+:xnack-.kpack",
		},
		BinaryDir: ".",
		ArchList:  []string{"gfx942:sramecc+:xnack-"},
	}
	p := NewPlan(src, req)
	eq(t, "Paths", p.Paths, req.SearchPaths)
	eq(t, "Opened", p.Opened, req.SearchPaths)
	eq(t, "Candidates", candStrings(p.Candidates), []string{
		"gfx942:sramecc+:xnack- gfx942:sramecc+:xnack- k/g_gfx942:sramecc+:xnack-.kpack",
		"gfx942:sramecc+:xnack- gfx942:sramecc+ k/g_gfx942:sramecc+.kpack",
		"gfx942:sramecc+:xnack- gfx942:xnack- k/g_gfx942:xnack-.kpack",
		"gfx942:sramecc+:xnack- gfx942 k/g_gfx942.kpack",
	})
	if p.Disabled {
		t.Error("Disabled set without ROCM_KPACK_DISABLE")
	}

	// Fall-through with the key only in the bare archive: all four are
	// tried in that order.
	src.has("k/g_gfx942.kpack", "kern#0", "gfx942", kpack.Success)
	r := p.Load(src, "kern#0", finding.Fallthrough)
	eq(t, "Code", r.Code, kpack.Success)
	if !r.OK() {
		t.Error("OK() false on success")
	}
	eq(t, "Archive", r.Archive, "k/g_gfx942.kpack")
	eq(t, "Target", r.Target, "gfx942")
	eq(t, "Trace", traceStrings(r.Trace), []string{
		"gfx942:sramecc+:xnack- k/g_gfx942:sramecc+:xnack-.kpack 5",
		"gfx942:sramecc+ k/g_gfx942:sramecc+.kpack 5",
		"gfx942:xnack- k/g_gfx942:xnack-.kpack 5",
		"gfx942 k/g_gfx942.kpack 0",
	})
	for _, s := range r.Trace {
		if s.Arch != "gfx942:sramecc+:xnack-" {
			t.Errorf("step Arch = %q", s.Arch)
		}
	}

	// One archive declaring several compatible targets yields one candidate
	// per target, in target order.
	src2 := newFake().archive("all.kpack", "gfx942", "gfx942:xnack-", "gfx90a", "gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack+")
	p2 := NewPlan(src2, Request{SearchPaths: []string{"all.kpack"}, BinaryDir: ".", ArchList: []string{"gfx942:sramecc+:xnack-"}})
	eq(t, "single-archive candidates", candStrings(p2.Candidates), []string{
		"gfx942:sramecc+:xnack- gfx942:sramecc+:xnack- all.kpack",
		"gfx942:sramecc+:xnack- gfx942:xnack- all.kpack",
		"gfx942:sramecc+:xnack- gfx942 all.kpack",
	})
}

// Within one target, archives are taken in path order.
func TestCandidateOrderSameTargetPathOrder(t *testing.T) {
	src := newFake().
		archive("b.kpack", "gfx1100").
		archive("a.kpack", "gfx1100").
		archive("c.kpack", "gfx1101")
	p := NewPlan(src, Request{SearchPaths: []string{"b.kpack", "c.kpack", "a.kpack"}, BinaryDir: ".", ArchList: []string{"gfx1100"}})
	eq(t, "Opened", p.Opened, []string{"b.kpack", "c.kpack", "a.kpack"})
	eq(t, "Candidates", candStrings(p.Candidates), []string{
		"gfx1100 gfx1100 b.kpack",
		"gfx1100 gfx1100 a.kpack",
	})
}

// @GFXARCH@ expands to arch_list x compatible targets, and relative paths
// resolve against BinaryDir.
func TestGfxArchExpansionAndRelativePaths(t *testing.T) {
	src := newFake().archive(".kpack/g_gfx950.kpack", "gfx950")
	req := Request{
		SearchPaths: []string{"../.kpack/g_@GFXARCH@.kpack"},
		BinaryDir:   "bin",
		ArchList:    []string{"gfx950:sramecc+:xnack+", "gfx9-4-generic"},
	}
	p := NewPlan(src, req)
	eq(t, "Paths", p.Paths, []string{
		".kpack/g_gfx950:sramecc+:xnack+.kpack",
		".kpack/g_gfx950:sramecc+.kpack",
		".kpack/g_gfx950:xnack+.kpack",
		".kpack/g_gfx950.kpack",
		".kpack/g_gfx9-4-generic.kpack",
	})
	eq(t, "opens", src.opens, p.Paths)
	eq(t, "Opened", p.Opened, []string{".kpack/g_gfx950.kpack"})
	eq(t, "Candidates", candStrings(p.Candidates), []string{"gfx950:sramecc+:xnack+ gfx950 .kpack/g_gfx950.kpack"})

	// Only the first placeholder of a path is replaced (loader.cpp: find,
	// then replace once); a path without one is used as it is, once.
	p = NewPlan(newFake(), Request{
		SearchPaths: []string{"@GFXARCH@/x_@GFXARCH@.kpack", "plain.kpack"},
		BinaryDir:   "lib/sub",
		ArchList:    []string{"gfx90a:xnack-", "gfx1100"},
	})
	eq(t, "multi-placeholder Paths", p.Paths, []string{
		"lib/sub/gfx90a:xnack-/x_@GFXARCH@.kpack",
		"lib/sub/gfx90a/x_@GFXARCH@.kpack",
		"lib/sub/gfx1100/x_@GFXARCH@.kpack",
		"lib/sub/plain.kpack",
	})

	// Path normalisation.
	for _, c := range []struct{ dir, sp, want string }{
		{"bin", "../.kpack/g_gfx950.kpack", ".kpack/g_gfx950.kpack"},
		{".", "./a/./b/../c.kpack", "a/c.kpack"},
		{"", "x.kpack", "x.kpack"},
		{"lib/rocm", "../../k.kpack", "k.kpack"},
		{"lib", "kp//x.kpack", "lib/kp/x.kpack"},
		{"lib", "..", "."},
		{"lib", "../..", ""},
		{".", "../x.kpack", ""},
		{"lib/a", "../../../x.kpack", ""},
		{"lib", "a/../../../x", ""},
		{"bin", "/opt/rocm/lib/x.kpack", ""},
		{"bin", "/x.kpack", ""},
		{"bin", "", ""},
		{"bin", "..x.kpack", "bin/..x.kpack"},
	} {
		if got := ResolvePath(c.dir, c.sp); got != c.want {
			t.Errorf("ResolvePath(%q, %q) = %q, want %q", c.dir, c.sp, got, c.want)
		}
	}
}

// Absolute paths and paths that climb out of the root are never opened,
// even when the fake would answer for them.
func TestEscapingPathsNeverOpened(t *testing.T) {
	src := newFake().
		archive("/opt/rocm/x.kpack", "gfx1100").
		archive("../x.kpack", "gfx1100").
		archive("x.kpack", "gfx1100").
		archive("opt/rocm/x.kpack", "gfx1100")
	req := Request{
		SearchPaths: []string{"/opt/rocm/x.kpack", "../../x.kpack", "../../../@GFXARCH@.kpack", "/@GFXARCH@.kpack"},
		BinaryDir:   "bin",
		ArchList:    []string{"gfx1100"},
	}
	p := NewPlan(src, req)
	eq(t, "Paths", p.Paths, []string{"", "", "", ""})
	if len(src.opens) != 0 {
		t.Errorf("opened %q; want nothing opened", src.opens)
	}
	if len(p.Opened) != 0 || len(p.Candidates) != 0 {
		t.Errorf("Opened %q Candidates %v; want none", p.Opened, p.Candidates)
	}
	r := p.Load(src, "k#0", finding.Fallthrough)
	eq(t, "Code", r.Code, kpack.ArchiveNotFound)
	if len(src.fetches) != 0 {
		t.Errorf("fetched %v", src.fetches)
	}

	// Mixed with a good path: only the good one is opened.
	src.opens = nil
	req.SearchPaths = append(req.SearchPaths, "../x.kpack")
	p = NewPlan(src, req)
	eq(t, "opens", src.opens, []string{"x.kpack"})
	eq(t, "Opened", p.Opened, []string{"x.kpack"})
}

func TestArchiveNotFound(t *testing.T) {
	src := newFake().archive("elsewhere.kpack", "gfx942")
	req := Request{SearchPaths: []string{"k/g_@GFXARCH@.kpack", "missing.kpack"}, BinaryDir: ".", ArchList: []string{"gfx942:sramecc+:xnack-"}}
	for _, l := range []finding.Loader{finding.Legacy, finding.Fallthrough} {
		r, p := Resolve(src, req, "k#0", l)
		eq(t, string(l)+" Code", r.Code, kpack.ArchiveNotFound)
		if r.Code != 13 {
			t.Errorf("ARCHIVE_NOT_FOUND = %d, want 13", r.Code)
		}
		if r.OK() || r.Archive != "" || r.Target != "" || len(r.Trace) != 0 {
			t.Errorf("%s: result %+v", l, r)
		}
		eq(t, "Paths", len(p.Paths), 5)
		if len(p.Opened) != 0 {
			t.Errorf("Opened %q", p.Opened)
		}
	}
	// No search paths at all.
	r, _ := Resolve(src, Request{BinaryDir: ".", ArchList: []string{"gfx942"}}, "k#0", finding.Fallthrough)
	eq(t, "no paths", r.Code, kpack.ArchiveNotFound)
	if len(src.fetches) != 0 {
		t.Errorf("fetched %v", src.fetches)
	}
}

// Archives open but none declares a compatible target. The archive's file
// name is never compared with its gfx_arches.
func TestArchNotFound(t *testing.T) {
	src := newFake().
		archive("k/g_gfx942.kpack", "gfx942:sramecc-", "gfx942:xnack+", "gfx90a").
		archive("k/g_gfx950.kpack", "gfx950")
	req := Request{SearchPaths: []string{"k/g_gfx942.kpack", "k/g_gfx950.kpack"}, BinaryDir: ".", ArchList: []string{"gfx942:sramecc+:xnack-"}}
	for _, l := range []finding.Loader{finding.Legacy, finding.Fallthrough} {
		r, p := Resolve(src, req, "k#0", l)
		eq(t, string(l)+" Code", r.Code, kpack.ArchNotFound)
		if r.Code != 14 {
			t.Errorf("ARCH_NOT_FOUND = %d, want 14", r.Code)
		}
		eq(t, "Opened", p.Opened, []string{"k/g_gfx942.kpack", "k/g_gfx950.kpack"})
		if len(p.Candidates) != 0 || len(r.Trace) != 0 {
			t.Errorf("Candidates %v Trace %v", p.Candidates, r.Trace)
		}
	}
	if len(src.fetches) != 0 {
		t.Errorf("fetched %v", src.fetches)
	}

	// The name says gfx942, the content says gfx950: it serves gfx950.
	src2 := newFake().archive("k/g_gfx942.kpack", "gfx950").has("k/g_gfx942.kpack", "k#0", "gfx950", kpack.Success)
	r, _ := Resolve(src2, Request{SearchPaths: []string{"k/g_@GFXARCH@.kpack", "k/g_gfx942.kpack"}, BinaryDir: ".", ArchList: []string{"gfx950"}}, "k#0", finding.Legacy)
	eq(t, "misnamed archive", r.Code, kpack.Success)
	eq(t, "misnamed archive served", r.Archive, "k/g_gfx942.kpack")
}

// ROCM-31644: ASAN fft_test group on gfx950:sramecc+:xnack+. The xnack+
// archive holds hipFFT's kernels only, the bare archive rocFFT's.
func TestSeedROCM31644(t *testing.T) {
	const (
		xn   = ".kpack/fft_test_gfx950:xnack+.kpack"
		bare = ".kpack/fft_test_gfx950.kpack"
		rocK = "rocfft_kernel_xyz#0"
		hipK = "hipfft_kernel#0"
	)
	src := newFake().
		archive(xn, "gfx950:xnack+").
		archive(bare, "gfx950").
		has(xn, hipK, "gfx950:xnack+", kpack.Success).
		has(bare, rocK, "gfx950", kpack.Success)
	req := Request{
		SearchPaths: []string{"../.kpack/fft_test_@GFXARCH@.kpack"},
		BinaryDir:   "bin",
		ArchList:    []string{"gfx950:sramecc+:xnack+"},
	}
	p := NewPlan(src, req)
	eq(t, "Opened", p.Opened, []string{xn, bare})
	eq(t, "Candidates", candStrings(p.Candidates), []string{
		"gfx950:sramecc+:xnack+ gfx950:xnack+ " + xn,
		"gfx950:sramecc+:xnack+ gfx950 " + bare,
	})

	leg := p.Load(src, rocK, finding.Legacy)
	eq(t, "legacy Code", leg.Code, kpack.KernelNotFound)
	eq(t, "legacy Archive", leg.Archive, "")
	eq(t, "legacy Target", leg.Target, "")
	eq(t, "legacy Trace", leg.Trace, []Step{
		{Candidate: Candidate{Arch: "gfx950:sramecc+:xnack+", Target: "gfx950:xnack+", Archive: xn}, Code: kpack.KernelNotFound},
	})

	ft := p.Load(src, rocK, finding.Fallthrough)
	eq(t, "fallthrough Code", ft.Code, kpack.Success)
	eq(t, "fallthrough Archive", ft.Archive, bare)
	eq(t, "fallthrough Target", ft.Target, "gfx950")
	eq(t, "fallthrough Trace", ft.Trace, []Step{
		{Candidate: Candidate{Arch: "gfx950:sramecc+:xnack+", Target: "gfx950:xnack+", Archive: xn}, Code: kpack.KernelNotFound},
		{Candidate: Candidate{Arch: "gfx950:sramecc+:xnack+", Target: "gfx950", Archive: bare}, Code: kpack.Success},
	})

	// hipFFT's kernel is served by the xnack+ archive under both loaders.
	for _, l := range []finding.Loader{finding.Legacy, finding.Fallthrough} {
		r := p.Load(src, hipK, l)
		eq(t, string(l)+" hipfft Code", r.Code, kpack.Success)
		eq(t, string(l)+" hipfft Archive", r.Archive, xn)
		eq(t, string(l)+" hipfft Target", r.Target, "gfx950:xnack+")
		eq(t, string(l)+" hipfft trace len", len(r.Trace), 1)
	}

	// A kernel in neither archive: fall-through ends with the last error.
	r := p.Load(src, "nowhere#0", finding.Fallthrough)
	eq(t, "nowhere Code", r.Code, kpack.KernelNotFound)
	eq(t, "nowhere trace len", len(r.Trace), 2)
	eq(t, "nowhere Archive", r.Archive, "")

	// Resolve does the same in one call.
	r, p2 := Resolve(src, req, rocK, finding.Legacy)
	eq(t, "Resolve legacy", r.Code, kpack.KernelNotFound)
	eq(t, "Resolve plan", p2.Candidates, p.Candidates)
}

// TheRock#7081: an xnack- overlay archive for gfx90a sits in front of the
// bare gfx90a archive; it covers only part of the kernels.
func TestTheRock7081Overlay(t *testing.T) {
	const (
		overlay = "lib/.kpack/blas_gfx90a:xnack-.kpack"
		base    = "lib/.kpack/blas_gfx90a.kpack"
	)
	src := newFake().
		archive(overlay, "gfx90a:xnack-").
		archive(base, "gfx90a").
		has(overlay, "overlay_k#0", "gfx90a:xnack-", kpack.Success).
		has(base, "overlay_k#0", "gfx90a", kpack.Success).
		has(base, "base_k#0", "gfx90a", kpack.Success)
	req := Request{SearchPaths: []string{".kpack/blas_@GFXARCH@.kpack"}, BinaryDir: "lib", ArchList: []string{"gfx90a:sramecc-:xnack-"}}
	p := NewPlan(src, req)
	eq(t, "Paths", p.Paths, []string{
		"lib/.kpack/blas_gfx90a:sramecc-:xnack-.kpack",
		"lib/.kpack/blas_gfx90a:sramecc-.kpack",
		overlay,
		base,
	})
	eq(t, "Candidates", candStrings(p.Candidates), []string{
		"gfx90a:sramecc-:xnack- gfx90a:xnack- " + overlay,
		"gfx90a:sramecc-:xnack- gfx90a " + base,
	})

	leg := p.Load(src, "base_k#0", finding.Legacy)
	eq(t, "legacy base_k", leg.Code, kpack.KernelNotFound)
	eq(t, "legacy base_k trace", traceStrings(leg.Trace), []string{"gfx90a:xnack- " + overlay + " 5"})

	ft := p.Load(src, "base_k#0", finding.Fallthrough)
	eq(t, "fallthrough base_k", ft.Code, kpack.Success)
	eq(t, "fallthrough base_k archive", ft.Archive, base)
	eq(t, "fallthrough base_k trace", traceStrings(ft.Trace), []string{
		"gfx90a:xnack- " + overlay + " 5",
		"gfx90a " + base + " 0",
	})

	// The overlay wins when it has the kernel.
	for _, l := range []finding.Loader{finding.Legacy, finding.Fallthrough} {
		r := p.Load(src, "overlay_k#0", l)
		eq(t, string(l)+" overlay_k archive", r.Archive, overlay)
		eq(t, string(l)+" overlay_k target", r.Target, "gfx90a:xnack-")
	}

	// An xnack+ agent never sees the xnack- overlay.
	p = NewPlan(src, Request{SearchPaths: req.SearchPaths, BinaryDir: "lib", ArchList: []string{"gfx90a:sramecc-:xnack+"}})
	eq(t, "xnack+ candidates", candStrings(p.Candidates), []string{"gfx90a:sramecc-:xnack+ gfx90a " + base})
	r := p.Load(src, "base_k#0", finding.Legacy)
	eq(t, "xnack+ legacy", r.Code, kpack.Success)
}

// When every candidate fails, fall-through returns the last error; legacy
// returns the first candidate's error at once.
func TestLastErrorAndLegacyImmediate(t *testing.T) {
	const a, b = "a.kpack", "b.kpack"
	src := newFake().
		archive(a, "gfx1100").
		archive(b, "gfx1100").
		has(a, "k#0", "gfx1100", kpack.DecompressionFailed).
		has(b, "k#0", "gfx1100", kpack.KernelNotFound).
		has(a, "j#0", "gfx1100", kpack.KernelNotFound).
		has(b, "j#0", "gfx1100", kpack.DecompressionFailed).
		has(b, "s#0", "gfx1100", kpack.Success)
	p := NewPlan(src, Request{SearchPaths: []string{a, b}, BinaryDir: ".", ArchList: []string{"gfx1100"}})

	r := p.Load(src, "k#0", finding.Fallthrough)
	eq(t, "k fallthrough", r.Code, kpack.KernelNotFound)
	eq(t, "k trace", traceStrings(r.Trace), []string{"gfx1100 a.kpack 6", "gfx1100 b.kpack 5"})
	eq(t, "k archive", r.Archive, "")

	r = p.Load(src, "j#0", finding.Fallthrough)
	eq(t, "j fallthrough", r.Code, kpack.DecompressionFailed)
	eq(t, "j trace", traceStrings(r.Trace), []string{"gfx1100 a.kpack 5", "gfx1100 b.kpack 6"})

	src.fetches = nil
	r = p.Load(src, "k#0", finding.Legacy)
	eq(t, "k legacy", r.Code, kpack.DecompressionFailed)
	eq(t, "k legacy trace", traceStrings(r.Trace), []string{"gfx1100 a.kpack 6"})
	eq(t, "k legacy fetches", src.fetches, []fetchKey{{a, "k#0", "gfx1100"}})

	// A decompression failure does not stop fall-through from a later
	// success.
	src.has(a, "s#0", "gfx1100", kpack.DecompressionFailed)
	r = p.Load(src, "s#0", finding.Fallthrough)
	eq(t, "s fallthrough", r.Code, kpack.Success)
	eq(t, "s archive", r.Archive, b)
	r = p.Load(src, "s#0", finding.Legacy)
	eq(t, "s legacy", r.Code, kpack.DecompressionFailed)
}

// The same archive reached through three search paths (one a symlink-like
// alias) appears once in Opened and is fetched once, but, as in the
// runtime, once per path in the candidate list (the repeats are marked
// Again in the trace).
func TestSameArchiveTwoPaths(t *testing.T) {
	const real = "lib/.kpack/g_gfx942.kpack"
	src := newFake().
		archive(real, "gfx942").
		alias("lib/rocm/.kpack/g_gfx942.kpack", "lib/link.kpack").
		alias("lib/link.kpack", real)
	req := Request{
		SearchPaths: []string{"rocm/.kpack/g_@GFXARCH@.kpack", ".kpack/g_@GFXARCH@.kpack", "./.kpack/g_gfx942.kpack"},
		BinaryDir:   "lib",
		ArchList:    []string{"gfx942:sramecc+:xnack-"},
	}
	p := NewPlan(src, req)
	eq(t, "Opened", p.Opened, []string{real})
	c := "gfx942:sramecc+:xnack- gfx942 " + real
	eq(t, "Candidates", candStrings(p.Candidates), []string{c, c, c})
	r := p.Load(src, "k#0", finding.Fallthrough)
	eq(t, "Code", r.Code, kpack.KernelNotFound)
	eq(t, "fetches", src.fetches, []fetchKey{{real, "k#0", "gfx942"}})
	eq(t, "trace", len(r.Trace), 3)
	eq(t, "trace again", []bool{r.Trace[0].Again, r.Trace[1].Again, r.Trace[2].Again}, []bool{false, true, true})

	// A repeated arch in arch_list gives repeated candidates, each
	// (archive, target) fetched once.
	src.fetches = nil
	p = NewPlan(src, Request{SearchPaths: []string{"lib/.kpack/g_gfx942.kpack"}, BinaryDir: ".", ArchList: []string{"gfx942:sramecc+:xnack-", "gfx942"}})
	eq(t, "repeated-arch candidates", candStrings(p.Candidates), []string{
		"gfx942:sramecc+:xnack- gfx942 " + real,
		"gfx942 gfx942 " + real,
	})
	r = p.Load(src, "k#0", finding.Fallthrough)
	eq(t, "repeated-arch code", r.Code, kpack.KernelNotFound)
	eq(t, "repeated-arch fetches", src.fetches, []fetchKey{{real, "k#0", "gfx942"}})
	eq(t, "repeated-arch trace", len(r.Trace), 2)
}

// arch_list with a generic fallback: only a gfx9-4-generic archive exists.
func TestGenericFallback(t *testing.T) {
	const gen = ".kpack/g_gfx9-4-generic.kpack"
	src := newFake().archive(gen, "gfx9-4-generic").has(gen, "k#0", "gfx9-4-generic", kpack.Success)
	req := Request{
		SearchPaths: []string{"../.kpack/g_@GFXARCH@.kpack"},
		BinaryDir:   "bin",
		ArchList:    []string{"gfx942:sramecc+:xnack-", "gfx9-4-generic"},
	}
	p := NewPlan(src, req)
	eq(t, "Paths", p.Paths, []string{
		".kpack/g_gfx942:sramecc+:xnack-.kpack",
		".kpack/g_gfx942:sramecc+.kpack",
		".kpack/g_gfx942:xnack-.kpack",
		".kpack/g_gfx942.kpack",
		gen,
	})
	eq(t, "Candidates", candStrings(p.Candidates), []string{"gfx9-4-generic gfx9-4-generic " + gen})
	for _, l := range []finding.Loader{finding.Legacy, finding.Fallthrough} {
		r := p.Load(src, "k#0", l)
		eq(t, string(l)+" Code", r.Code, kpack.Success)
		eq(t, string(l)+" Archive", r.Archive, gen)
		eq(t, string(l)+" Target", r.Target, "gfx9-4-generic")
		eq(t, string(l)+" Trace", r.Trace, []Step{{Candidate: Candidate{Arch: "gfx9-4-generic", Target: "gfx9-4-generic", Archive: gen}, Code: kpack.Success}})
	}

	// With a specific archive too, the agent's own arch comes first: legacy
	// stops there on a miss, fall-through moves to the next arch.
	src.archive(".kpack/g_gfx942.kpack", "gfx942")
	p = NewPlan(src, req)
	eq(t, "Candidates with both", candStrings(p.Candidates), []string{
		"gfx942:sramecc+:xnack- gfx942 .kpack/g_gfx942.kpack",
		"gfx9-4-generic gfx9-4-generic " + gen,
	})
	eq(t, "legacy with both", p.Load(src, "k#0", finding.Legacy).Code, kpack.KernelNotFound)
	r := p.Load(src, "k#0", finding.Fallthrough)
	eq(t, "fallthrough with both", r.Code, kpack.Success)
	eq(t, "fallthrough with both arch", r.Trace[len(r.Trace)-1].Arch, "gfx9-4-generic")

	// An arch_list entry that is not a valid target ID expands on the
	// string, as the runtime's for_each_compatible_target does.
	src3 := newFake().archive("x.kpack", "gfx942:bogus+").has("x.kpack", "k#0", "gfx942:bogus+", kpack.Success)
	p = NewPlan(src3, Request{SearchPaths: []string{"@GFXARCH@.kpack", "x.kpack"}, BinaryDir: ".", ArchList: []string{"gfx942:bogus+"}})
	eq(t, "invalid arch Paths", p.Paths, []string{"gfx942:bogus+.kpack", "gfx942.kpack", "x.kpack"})
	eq(t, "invalid arch Candidates", candStrings(p.Candidates), []string{"gfx942:bogus+ gfx942:bogus+ x.kpack"})

	// The triple prefix is stripped from the arch.
	p = NewPlan(src, Request{SearchPaths: []string{gen}, BinaryDir: ".", ArchList: []string{"amdgcn-amd-amdhsa--gfx9-4-generic"}})
	eq(t, "triple Candidates", candStrings(p.Candidates), []string{"gfx9-4-generic gfx9-4-generic " + gen})
}

func TestEnv(t *testing.T) {
	const (
		emb = "lib/.kpack/g_gfx1100.kpack"
		env = "override/g_gfx1100.kpack"
		pre = "prefix/g_gfx1100.kpack"
	)
	newSrc := func() *fakeSource {
		return newFake().
			archive(emb, "gfx1100").
			archive(env, "gfx1100").
			archive(pre, "gfx1100").
			has(emb, "k#0", "gfx1100", kpack.Success).
			has(env, "k#0", "gfx1100", kpack.Success).
			has(pre, "k#0", "gfx1100", kpack.Success)
	}
	base := Request{SearchPaths: []string{".kpack/g_@GFXARCH@.kpack"}, BinaryDir: "lib", ArchList: []string{"gfx1100"}}

	t.Run("none", func(t *testing.T) {
		src := newSrc()
		r, p := Resolve(src, base, "k#0", finding.Fallthrough)
		eq(t, "Paths", p.Paths, []string{emb})
		eq(t, "Archive", r.Archive, emb)
	})

	t.Run("ROCM_KPACK_PATH replaces", func(t *testing.T) {
		src := newSrc()
		req := base
		// Env entries are relative to the tree root, not to BinaryDir, and
		// used as given: @GFXARCH@ stays literal.
		req.Env = Env{Path: env + ":override/g_@GFXARCH@.kpack", Prefix: pre}
		r, p := Resolve(src, req, "k#0", finding.Fallthrough)
		eq(t, "Paths", p.Paths, []string{env, "override/g_@GFXARCH@.kpack"})
		eq(t, "Opened", p.Opened, []string{env})
		eq(t, "opens", src.opens, []string{env, "override/g_@GFXARCH@.kpack"})
		eq(t, "Archive", r.Archive, env)
	})

	t.Run("ROCM_KPACK_PATH set but empty counts as unset", func(t *testing.T) {
		src := newSrc()
		req := base
		env, err := ParseEnv(map[string]string{EnvPath: ""})
		eq(t, "err", err, error(nil))
		req.Env = env
		r, p := Resolve(src, req, "k#0", finding.Fallthrough)
		eq(t, "Paths", p.Paths, []string{emb})
		eq(t, "Archive", r.Archive, emb)
	})

	t.Run("ROCM_KPACK_PATH_PREFIX first", func(t *testing.T) {
		src := newSrc()
		req := base
		// Entries are opened as written, relative to the tree root.
		req.Env = Env{Prefix: pre + ":/abs/x.kpack:../up.kpack"}
		p := NewPlan(src, req)
		eq(t, "Paths", p.Paths, []string{pre, "abs/x.kpack", "../up.kpack", emb})
		eq(t, "Opened", p.Opened, []string{pre, emb})
		eq(t, "Candidates", candStrings(p.Candidates), []string{"gfx1100 gfx1100 " + pre, "gfx1100 gfx1100 " + emb})
		for _, l := range []finding.Loader{finding.Legacy, finding.Fallthrough} {
			r := p.Load(src, "k#0", l)
			eq(t, string(l)+" Archive", r.Archive, pre)
		}
		// Prefix archive lacks a kernel the embedded one has.
		src.has(pre, "e#0", "gfx1100", kpack.KernelNotFound).has(emb, "e#0", "gfx1100", kpack.Success)
		eq(t, "legacy e", p.Load(src, "e#0", finding.Legacy).Code, kpack.KernelNotFound)
		r := p.Load(src, "e#0", finding.Fallthrough)
		eq(t, "fallthrough e", r.Archive, emb)
	})

	t.Run("ROCM_KPACK_DISABLE", func(t *testing.T) {
		src := newSrc()
		req := base
		req.Env = Env{Disable: true, Prefix: pre}
		for _, l := range []finding.Loader{finding.Legacy, finding.Fallthrough} {
			r, p := Resolve(src, req, "k#0", l)
			eq(t, string(l)+" Code", r.Code, kpack.NotImplemented)
			if !p.Disabled {
				t.Error("Disabled not set")
			}
			if len(p.Paths)+len(p.Opened)+len(p.Candidates)+len(r.Trace) != 0 {
				t.Errorf("disabled plan not empty: %+v %+v", p, r)
			}
		}
		if len(src.opens)+len(src.fetches) != 0 {
			t.Errorf("disabled loader touched the tree: %v %v", src.opens, src.fetches)
		}
	})
}

func TestResultOK(t *testing.T) {
	if !(Result{Code: kpack.Success}).OK() {
		t.Error("Success not OK")
	}
	for _, c := range []kpack.Code{kpack.KernelNotFound, kpack.DecompressionFailed, kpack.ArchiveNotFound, kpack.ArchNotFound} {
		if (Result{Code: c}).OK() {
			t.Errorf("%v OK", c)
		}
	}
}

// benchSource is a fixed-cost Source for the benchmark: three archives, the
// key found in the third.
type benchSource struct{ arches map[string][]string }

func (s benchSource) Open(p string) (kpack.Opened, bool) {
	a, ok := s.arches[p]
	return kpack.Opened{Path: p, Arches: a}, ok
}

func (s benchSource) Fetch(p, key, arch string) kpack.Code {
	if strings.HasSuffix(p, "gfx942.kpack") {
		return kpack.Success
	}
	return kpack.KernelNotFound
}

func BenchmarkPlanLoad(b *testing.B) {
	src := benchSource{arches: map[string][]string{
		".kpack/g_gfx942:sramecc+:xnack-.kpack": {"gfx942:sramecc+:xnack-"},
		".kpack/g_gfx942:xnack-.kpack":          {"gfx942:xnack-"},
		".kpack/g_gfx942.kpack":                 {"gfx942"},
	}}
	req := Request{SearchPaths: []string{"../.kpack/g_@GFXARCH@.kpack"}, BinaryDir: "bin", ArchList: []string{"gfx942:sramecc+:xnack-"}}
	p := NewPlan(src, req)
	if len(p.Opened) != 3 || len(p.Candidates) != 3 {
		b.Fatalf("plan: opened %v candidates %v", p.Opened, p.Candidates)
	}
	const nkeys = 10000
	keys := make([]string, nkeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("kernel_%d#%d", i, i%4)
	}
	for _, l := range []finding.Loader{finding.Legacy, finding.Fallthrough} {
		b.Run(string(l), func(b *testing.B) {
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, k := range keys {
					r := p.Load(src, k, l)
					if (l == finding.Fallthrough) != r.OK() {
						b.Fatalf("%s %s: %v", l, k, r.Code)
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nkeys), "ns/load")
		})
	}
}

// TestServesAgreesWithLoad: on random plans (repeated archive paths,
// faulted archives, every fetch code) Serves names the candidate Load
// serves from under each loader, and -1 exactly where Load fails.
func TestServesAgreesWithLoad(t *testing.T) {
	codes := []kpack.Code{kpack.Success, kpack.KernelNotFound, kpack.DecompressionFailed, kpack.IOError, kpack.Abort}
	rng := uint64(1)
	next := func(n int) int { // xorshift, deterministic
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	for i := 0; i < 5000; i++ {
		f := newFake()
		for _, a := range []string{"a", "b", "c"} {
			if next(4) == 0 {
				continue
			}
			f.archive(".kpack/"+a+".kpack", "gfx942:sramecc+", "gfx942")
			if next(8) == 0 {
				f.faulty(".kpack/" + a + ".kpack")
			}
			for _, arch := range []string{"gfx942:sramecc+", "gfx942"} {
				f.has(".kpack/"+a+".kpack", "k#0", arch, codes[next(len(codes))])
			}
		}
		var paths []string
		for range 1 + next(4) {
			paths = append(paths, ".kpack/"+string(rune('a'+next(3)))+".kpack")
		}
		req := Request{SearchPaths: paths, ArchList: []string{"gfx942:sramecc+:xnack-"}, Env: Env{Disable: next(20) == 0}}
		p := NewPlan(f, req)
		legacy, fall := p.Serves(func(i int) kpack.Code {
			c := p.Candidates[i]
			return f.Fetch(c.Archive, "k#0", c.Target)
		})
		for _, tc := range []struct {
			l     finding.Loader
			index int
		}{{finding.Legacy, legacy}, {finding.Fallthrough, fall}} {
			r := p.Load(f, "k#0", tc.l)
			switch {
			case r.OK() != (tc.index >= 0):
				t.Fatalf("%v %+v: Load %v, Serves %d", tc.l, req, r.Code, tc.index)
			case r.OK() && (p.Candidates[tc.index].Archive != r.Archive || p.Candidates[tc.index].Target != r.Target):
				t.Fatalf("%v %+v: Load served %s %s, Serves %+v", tc.l, req, r.Archive, r.Target, p.Candidates[tc.index])
			}
		}
	}
}
