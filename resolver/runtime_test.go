package resolver

import (
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
)

// runtimeCase is one load with the answer of the upstream runtimes
// (rocm-kpack legacy loader, rocm-systems fall-through loader @1ddbe7e9).
type runtimeCase struct {
	name     string
	src      *fakeSource
	req      Request
	key      string
	legacy   kpack.Code
	fall     kpack.Code
	fallFrom string // archive that serves the fall-through load, if it succeeds
}

func (tc runtimeCase) run(t *testing.T) {
	t.Helper()
	p := NewPlan(tc.src, tc.req)
	if r := p.Load(tc.src, tc.key, finding.Legacy); r.Code != tc.legacy {
		t.Errorf("%s: legacy = %v, want %v (trace %v)", tc.name, r.Code, tc.legacy, traceStrings(r.Trace))
	}
	r := p.Load(tc.src, tc.key, finding.Fallthrough)
	if r.Code != tc.fall || r.Archive != tc.fallFrom {
		t.Errorf("%s: fall-through = %v from %q, want %v from %q (trace %v)", tc.name, r.Code, r.Archive, tc.fall, tc.fallFrom, traceStrings(r.Trace))
	}
}

// TestRuntimeEnvironment: SPEC 2 (loader.cpp kpack_cache_create): the
// environment is used exactly as given.
func TestRuntimeEnvironment(t *testing.T) {
	const emb = ".kpack/blas_lib_gfx942.kpack"
	src := func() *fakeSource {
		return newFake().archive(emb, "gfx942").has(emb, "k#0", "gfx942", kpack.Success).
			archive("extra/x_gfx942.kpack", "gfx942").has("extra/x_gfx942.kpack", "k#0", "gfx942", kpack.Success)
	}
	req := func(vars map[string]string) Request {
		env, err := ParseEnv(vars)
		if err != nil {
			t.Fatal(err)
		}
		return Request{SearchPaths: []string{"../.kpack/blas_lib_@GFXARCH@.kpack"}, BinaryDir: "lib", ArchList: []string{"gfx942"}, Env: env}
	}
	for _, tc := range []runtimeCase{
		{name: "two @GFXARCH@: only the first is replaced", key: "k#0",
			src: newFake().archive("lib/gfx942/blas_lib_@GFXARCH@.kpack", "gfx942").
				has("lib/gfx942/blas_lib_@GFXARCH@.kpack", "k#0", "gfx942", kpack.Success).
				archive("lib/gfx942/blas_lib_gfx942.kpack", "gfx942"),
			req:    Request{SearchPaths: []string{"@GFXARCH@/blas_lib_@GFXARCH@.kpack"}, BinaryDir: "lib", ArchList: []string{"gfx942"}},
			legacy: kpack.Success, fall: kpack.Success, fallFrom: "lib/gfx942/blas_lib_@GFXARCH@.kpack"},
		{name: "ROCM_KPACK_PATH_PREFIX with @GFXARCH@ is not expanded", key: "k#0", src: src(),
			req:    req(map[string]string{EnvPrefix: "extra/x_@GFXARCH@.kpack"}),
			legacy: kpack.Success, fall: kpack.Success, fallFrom: emb},
		{name: "ROCM_KPACK_PATH with @GFXARCH@ is not expanded", key: "k#0", src: src(),
			req:    req(map[string]string{EnvPath: "extra/x_@GFXARCH@.kpack"}),
			legacy: kpack.ArchiveNotFound, fall: kpack.ArchiveNotFound},
		{name: "ROCM_KPACK_PATH replaces the embedded paths", key: "k#0", src: src(),
			req:    req(map[string]string{EnvPath: "::extra/x_gfx942.kpack:"}),
			legacy: kpack.Success, fall: kpack.Success, fallFrom: "extra/x_gfx942.kpack"},
		{name: "empty ROCM_KPACK_PATH is unset", key: "k#0", src: src(),
			req:    req(map[string]string{EnvPath: ""}),
			legacy: kpack.Success, fall: kpack.Success, fallFrom: emb},
		{name: "ROCM_KPACK_DISABLE=1", key: "k#0", src: src(), req: req(map[string]string{EnvDisable: "1"}),
			legacy: kpack.NotImplemented, fall: kpack.NotImplemented},
		{name: "ROCM_KPACK_DISABLE=yes", key: "k#0", src: src(), req: req(map[string]string{EnvDisable: "yes"}),
			legacy: kpack.NotImplemented, fall: kpack.NotImplemented},
		{name: "ROCM_KPACK_DISABLE=0 leaves it on", key: "k#0", src: src(), req: req(map[string]string{EnvDisable: "0"}),
			legacy: kpack.Success, fall: kpack.Success, fallFrom: emb},
		{name: "ROCM_KPACK_DISABLE=0x leaves it on", key: "k#0", src: src(), req: req(map[string]string{EnvDisable: "0x"}),
			legacy: kpack.Success, fall: kpack.Success, fallFrom: emb},
		{name: "ROCM_KPACK_DISABLE empty leaves it on", key: "k#0", src: src(), req: req(map[string]string{EnvDisable: ""}),
			legacy: kpack.Success, fall: kpack.Success, fallFrom: emb},
		{name: "ROCM_KPACK_PATH with ';' on Linux is one path", key: "k#0", src: src(),
			req:    req(map[string]string{EnvPath: "extra/x_gfx942.kpack;other.kpack"}),
			legacy: kpack.ArchiveNotFound, fall: kpack.ArchiveNotFound},
	} {
		tc.run(t)
	}
}

// TestSplitList follows split_path_list (loader.cpp): ':' on Linux, ';'
// on Windows, empty items dropped, entries otherwise as given.
func TestSplitList(t *testing.T) {
	eq(t, "linux", SplitList("a.kpack::/b.kpack:", false), []string{"a.kpack", "b.kpack"})
	eq(t, "linux keeps ';'", SplitList("opt/b;c.kpack", false), []string{"opt/b;c.kpack"})
	eq(t, "linux as written", SplitList("opt/a.kpack/:x/../a.kpack", false), []string{"opt/a.kpack/", "x/../a.kpack"})
	eq(t, "windows", SplitList(`x\y.kpack;;C:\opt\z.kpack`, true), []string{"x/y.kpack", "opt/z.kpack"})
	eq(t, "empty", SplitList("", false), []string(nil))
	if _, err := ParseEnv(map[string]string{"HSA_XNACK": "1"}); err == nil {
		t.Error("unknown variable accepted")
	}
	if env, err := ParseEnv(map[string]string{EnvDebug: "1", EnvDisable: " "}); err != nil || !env.Disable {
		t.Errorf("ROCM_KPACK_DEBUG and a space: %+v, %v", env, err)
	}
}

// TestRuntimeBadTOC: SPEC 1. A TOC value the runtime cannot convert fails
// the fixed runtime's open (the archive is skipped) and aborts the legacy
// runtime; a size no host can allocate aborts both at fetch.
func TestRuntimeBadTOC(t *testing.T) {
	const (
		bad  = ".kpack/g_gfx942:xnack-.kpack"
		good = ".kpack/g_gfx942.kpack"
	)
	req := Request{SearchPaths: []string{"../.kpack/g_@GFXARCH@.kpack"}, BinaryDir: "lib", ArchList: []string{"gfx942:xnack-"}}
	for _, tc := range []runtimeCase{
		{name: "string ordinal in the only archive", key: "k#0", req: req,
			src:    newFake().faulty(bad),
			legacy: kpack.Abort, fall: kpack.ArchiveNotFound},
		{name: "string ordinal, another archive serves", key: "k#1", req: req,
			src:    newFake().faulty(bad).archive(good, "gfx942").has(good, "k#1", "gfx942", kpack.Success),
			legacy: kpack.Abort, fall: kpack.Success, fallFrom: good},
		{name: "fetch that aborts ends both loaders", key: "k#0", req: req,
			src: newFake().archive(bad, "gfx942:xnack-").has(bad, "k#0", "gfx942:xnack-", kpack.Abort).
				archive(good, "gfx942").has(good, "k#0", "gfx942", kpack.Success),
			legacy: kpack.Abort, fall: kpack.Abort, fallFrom: bad},
	} {
		tc.run(t)
	}
}

// TestRuntimeLastError: SPEC 4.5 (loader.cpp @1ddbe7e9, 355-482). The
// candidate list is rebuilt per arch with repeated archive paths kept; a
// total miss returns the error of the last candidate tried.
func TestRuntimeLastError(t *testing.T) {
	const (
		plain = ".kpack/blas_lib_gfx900.kpack"
		xnack = ".kpack/blas_lib_gfx900:xnack+.kpack"
		key   = "lib/libx.so#0"
	)
	src := func() *fakeSource {
		return newFake().archive(plain, "gfx900"). // declares gfx900, holds nothing
								archive(xnack, "gfx900:xnack+").has(xnack, key, "gfx900:xnack+", kpack.DecompressionFailed)
	}
	for _, tc := range []runtimeCase{
		{name: "repeated bare archive decides the last error", key: key, src: src(),
			req:    Request{SearchPaths: []string{"../.kpack/blas_lib_@GFXARCH@.kpack"}, BinaryDir: "lib", ArchList: []string{"gfx900:xnack-", "gfx900:xnack+"}},
			legacy: kpack.KernelNotFound, fall: kpack.KernelNotFound},
		{name: "corrupt frame last", key: key, src: src(),
			req:    Request{SearchPaths: []string{"../.kpack/blas_lib_@GFXARCH@.kpack"}, BinaryDir: "lib", ArchList: []string{"gfx900:xnack+"}},
			legacy: kpack.DecompressionFailed, fall: kpack.KernelNotFound},
	} {
		tc.run(t)
	}
}
