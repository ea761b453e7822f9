package resolver

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
)

// referenceLoad is the fall-through/legacy load walking every candidate,
// repeats included, as loader.cpp does (the definition Load must match).
func referenceLoad(src Source, p *Plan, key string, l finding.Loader) Result {
	var r Result
	seen := map[[2]string]kpack.Code{}
	for _, c := range p.Candidates {
		k := [2]string{c.Archive, c.Target}
		code, again := seen[k]
		if !again {
			code = src.Fetch(c.Archive, key, c.Target)
			seen[k] = code
		}
		r.Trace = append(r.Trace, Step{Candidate: c, Code: code, Again: again})
		r.Code = code
		switch {
		case code == kpack.Success:
			r.Archive, r.Target = c.Archive, c.Target
			return r
		case code == kpack.Abort:
			r.Archive = c.Archive
			return r
		case l == finding.Legacy:
			return r
		}
	}
	return r
}

// Repeated search paths (env-path-repeat, dup-search-paths): Load and
// Serves walk each (archive, target) pair once and give what the runtime
// gives, candidate for candidate up to MaxTraceSteps; longer traces keep
// their first MaxTraceSteps steps and the last.
func TestRepeatedCandidatesMatchRuntime(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	codes := []kpack.Code{kpack.Success, kpack.KernelNotFound, kpack.DecompressionFailed, kpack.Abort}
	for iter := range 400 {
		src := newFake()
		names := []string{"a.kpack", "b.kpack", "c.kpack", "d.kpack"}
		for _, n := range names {
			src.archive(n, []string{"gfx942", "gfx942:xnack+", "gfx9-4-generic"}[:1+rng.Intn(3)]...)
			for _, arch := range []string{"gfx942", "gfx942:xnack+", "gfx9-4-generic"} {
				if rng.Intn(3) == 0 {
					src.has(n, "k#0", arch, codes[rng.Intn(len(codes))])
				}
			}
		}
		n := 1 + rng.Intn(40)
		if iter%4 == 0 {
			n = 200 + rng.Intn(400) // past MaxTraceSteps candidates
		}
		var list []string
		for range n {
			list = append(list, names[rng.Intn(len(names))])
		}
		req := Request{ArchList: []string{"gfx942:xnack+", "gfx9-4-generic"}, Env: Env{Path: strings.Join(list, ":")}}
		p := NewPlan(src, req)
		for _, l := range []finding.Loader{finding.Legacy, finding.Fallthrough} {
			want, got := referenceLoad(src, p, "k#0", l), p.Load(src, "k#0", l)
			if got.Code != want.Code || got.Archive != want.Archive || got.Target != want.Target {
				t.Fatalf("iter %d %v: %v %s %s, runtime %v %s %s", iter, l, got.Code, got.Archive, got.Target, want.Code, want.Archive, want.Target)
			}
			wantTrace, omitted := want.Trace, 0
			if len(wantTrace) > MaxTraceSteps+1 {
				omitted = len(wantTrace) - 1 - MaxTraceSteps
				wantTrace = append(wantTrace[:MaxTraceSteps:MaxTraceSteps], wantTrace[len(wantTrace)-1])
			}
			if !reflect.DeepEqual(got.Trace, wantTrace) || got.Omitted != omitted {
				t.Fatalf("iter %d %v: trace of %d (+%d), runtime %d (+%d)", iter, l, len(got.Trace), got.Omitted, len(wantTrace), omitted)
			}
		}
		legacy, fall := p.Serves(func(i int) kpack.Code {
			c := p.Candidates[i]
			return src.Fetch(c.Archive, "k#0", c.Target)
		})
		wl, wf := referenceLoad(src, p, "k#0", finding.Legacy), referenceLoad(src, p, "k#0", finding.Fallthrough)
		if (legacy >= 0) != (wl.OK() && len(p.Faulted) == 0) || (fall >= 0) != wf.OK() ||
			(fall >= 0 && (p.Candidates[fall].Archive != wf.Archive || p.Candidates[fall].Target != wf.Target)) {
			t.Fatalf("iter %d: Serves = %d, %d; runtime legacy %v, fall-through %v %s", iter, legacy, fall, wl.Code, wf.Code, wf.Archive)
		}
	}
}

// env-path-repeat: 100,000 copies of one archive path in ROCM_KPACK_PATH
// open it once per plan, fetch each (archive, target) once per load, and
// keep the last error; the trace lists MaxTraceSteps steps and the last.
func TestRepeatedEnvPathOnce(t *testing.T) {
	src := newFake().archive("a.kpack", "gfx942")
	p := NewPlan(src, Request{ArchList: []string{"gfx942"}, Env: Env{Path: strings.Repeat("a.kpack:", 100000)}})
	if len(src.opens) != 1 || len(p.Candidates) != 100000 || len(p.Firsts()) != 1 {
		t.Fatalf("%d opens, %d candidates, %d firsts", len(src.opens), len(p.Candidates), len(p.Firsts()))
	}
	r := p.Load(src, "k#0", finding.Fallthrough)
	if r.Code != kpack.KernelNotFound || len(src.fetches) != 1 || len(r.Trace) != MaxTraceSteps+1 || r.Omitted != 100000-1-MaxTraceSteps || !r.Trace[MaxTraceSteps].Again {
		t.Fatalf("code %v, %d fetches, trace %d (+%d)", r.Code, len(src.fetches), len(r.Trace), r.Omitted)
	}
}
