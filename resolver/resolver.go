// Package resolver simulates kpack_load_code_object (rocm-kpack runtime,
// shared/kpack/src/kpack.cpp) over a virtual install tree: it expands a host
// binary's search paths for an arch_list, opens the archives that exist,
// collects (archive, target) candidates and tries them as the legacy
// first-match loader or the fall-through loader (rocm-systems #9953) would.
package resolver

import (
	"path"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Source is the file tree the simulated loader reads. Paths are
// slash-separated and relative to the tree root.
type Source interface {
	// Open returns the archive at p, or false when p does not exist or
	// fails to open in both runtimes (bad magic, truncated TOC, ...): the
	// runtime skips such paths silently. An archive that only the fixed
	// runtime refuses is returned with Opened.Fault set.
	Open(p string) (kpack.Opened, bool)
	// Fetch fetches kernel key for target arch from the opened archive at
	// real path p, returning the runtime's result code (kpack.Abort when
	// kpack_get_kernel would abort the process).
	Fetch(p, key, arch string) kpack.Code
}

// Request names one load: the binary's search paths, the directory of the
// binary's real file (relative to the root, "." for the root) and the
// arch_list HIP passes (agent ISA first, then its generic target).
type Request struct {
	SearchPaths []string
	BinaryDir   string
	ArchList    []string
	Env         Env
	// Windows is set for a Windows process (a PE host binary): path lists
	// split at ';'.
	Windows bool
}

// Candidate is one (archive, matched target) pair, in loader order.
type Candidate struct {
	Arch    string // the arch_list entry it came from
	Target  string // the compatible target found in the archive's gfx_arches
	Archive string // real path of the archive
}

// Plan is the part of a load that does not depend on the kernel key: the
// expanded paths, which of them opened, and the candidate list. One plan
// serves every kernel of a binary on one arch_list.
type Plan struct {
	Paths   []string // expanded archive paths, in search order ("" where refused)
	Refused []string // expanded paths, as written, that are absolute or leave the tree root
	// Opened lists the real paths of the archives the fixed runtime opens,
	// de-duplicated, in path order.
	Opened []string
	Real   []string // per Paths entry: the real path it opened as, "" when it did not open
	// Faulted lists the archives whose TOC the fixed runtime refuses and
	// the legacy runtime aborts on (Opened.Fault), de-duplicated.
	Faulted []string
	// Candidates are the (archive, target) pairs in the order the loader
	// tries them: per arch_list entry, per compatible target, per opened
	// path. An archive reached by several paths appears once per path, as
	// in the runtime (loader.cpp keeps repeated archive paths).
	Candidates []Candidate
	Disabled   bool // ROCM_KPACK_DISABLE was set

	// firsts are the indexes of the candidates whose (archive, target)
	// pair no earlier candidate has, in order; pairOf is each candidate's
	// pair, numbered in first-appearance order. A repeat fetches what its
	// pair's first candidate fetched, so loads walk firsts only.
	firsts []int
	pairOf []int
}

// MaxTraceSteps bounds the steps a Result's trace lists: a load that tries
// more candidates (a search path list repeating one archive path 180,000
// times) lists its first MaxTraceSteps steps and the step that ends it,
// and counts the others in Result.Omitted. A real plan has a few dozen
// candidates.
const MaxTraceSteps = 256

// Firsts returns the indexes of the candidates that are the first to name
// their (archive, target) pair, in order. The caller must not change it.
func (p *Plan) Firsts() []int { return p.firsts }

// Step is one tried candidate and what its fetch returned.
type Step struct {
	Candidate
	Code kpack.Code
	// Again marks a candidate tried before in this load (the same archive
	// and target reached by another path or arch): the runtime fetches it
	// again and gets the same answer.
	Again bool
}

// Result is the outcome of one simulated kpack_load_code_object.
type Result struct {
	Code    kpack.Code
	Archive string // archive that served the kernel ("" on failure), or that aborted the process
	Target  string // matched target that served it
	Trace   []Step // candidates tried, in order (see MaxTraceSteps)
	// Omitted counts the candidates tried between the trace's first
	// MaxTraceSteps steps and its last one, which the trace does not list.
	Omitted int
}

// OK reports whether the load succeeded.
func (r Result) OK() bool { return r.Code == kpack.Success }

// NewPlan expands req's search paths (SPEC 4 steps 2-5) and opens them
// through src.
func NewPlan(src Source, req Request) *Plan {
	p := &Plan{Disabled: req.Env.Disable}
	if p.Disabled {
		return p
	}
	targets := expandArchList(req.ArchList)
	for _, sp := range searchPaths(req) {
		if sp.env {
			p.Paths = append(p.Paths, sp.path)
			continue
		}
		r := resolvePath(sp.dir, sp.path)
		if r == "" {
			p.Paths = append(p.Paths, "")
			p.Refused = append(p.Refused, sp.path)
			continue
		}
		p.Paths = append(p.Paths, expandPath(r, targets)...)
	}
	valid := p.open(src)
	for _, at := range targets {
		for _, t := range at.targets {
			for _, o := range valid {
				if slices.Contains(o.Arches, t) {
					p.Candidates = append(p.Candidates, Candidate{Arch: at.arch, Target: t, Archive: o.Path})
				}
			}
		}
	}
	p.index()
	return p
}

// index numbers the candidates' (archive, target) pairs (firsts, pairOf).
func (p *Plan) index() {
	type key struct{ archive, target string }
	ids := map[key]int{}
	p.pairOf = make([]int, len(p.Candidates))
	for i, c := range p.Candidates {
		k := key{c.Archive, c.Target}
		id, ok := ids[k]
		if !ok {
			id = len(ids)
			ids[k] = id
			p.firsts = append(p.firsts, i)
		}
		p.pairOf[i] = id
	}
}

// open opens every expanded path and returns the archives the fixed
// runtime keeps, one per path that opened (repeats kept, as the runtime's
// valid_archive_paths).
func (p *Plan) open(src Source) []kpack.Opened {
	var valid []kpack.Opened
	seen := map[string]bool{}
	type opened struct {
		o  kpack.Opened
		ok bool
	}
	byPath := map[string]opened{} // a path repeated in the list opens once
	p.Real = make([]string, len(p.Paths))
	for i, x := range p.Paths {
		if x == "" {
			continue
		}
		op, done := byPath[x]
		if !done {
			op.o, op.ok = src.Open(x)
			byPath[x] = op
		}
		o, ok := op.o, op.ok
		if !ok {
			continue
		}
		p.Real[i] = o.Path
		first := !seen[o.Path]
		seen[o.Path] = true
		if o.Fault != "" {
			if first {
				p.Faulted = append(p.Faulted, o.Path)
			}
			continue
		}
		if first {
			p.Opened = append(p.Opened, o.Path)
		}
		valid = append(valid, o)
	}
	return valid
}

// searchPath is one search path: an environment entry (used as given,
// relative to the tree root) or an embedded path (relative to dir, the
// binary's directory, normalised, its first @GFXARCH@ expanded).
type searchPath struct {
	path, dir string
	env       bool
}

func searchPaths(req Request) []searchPath {
	var out []searchPath
	if paths := req.EnvPaths(); len(paths) > 0 {
		for _, e := range paths {
			out = append(out, searchPath{path: e, env: true})
		}
		return out
	}
	for _, e := range req.EnvPrefixes() {
		out = append(out, searchPath{path: e, env: true})
	}
	for _, sp := range req.SearchPaths {
		out = append(out, searchPath{path: sp, dir: req.BinaryDir})
	}
	return out
}

type archTargets struct {
	arch    string
	targets []string
}

// expandArchList gives, per arch_list entry, its compatible targets most
// specific first (SPEC 4.4), worked out on the string as the runtime does
// (targetid.CompatibleTargetStrings): an entry need not be a valid target
// ID ("gfx9-generic:sramecc+:xnack-", which HIP passes for gfx906, expands
// like any other). Empty entries are skipped, as the runtime skips them.
func expandArchList(archs []string) []archTargets {
	out := make([]archTargets, 0, len(archs))
	for _, a := range archs {
		ts := targetid.CompatibleTargetStrings(a)
		if len(ts) == 0 {
			continue
		}
		out = append(out, archTargets{arch: ts[0], targets: ts})
	}
	return out
}

// expandPath replaces the first @GFXARCH@ of a resolved search path with
// each compatible target of each arch, in arch_list order; a later
// @GFXARCH@ stays literal (loader.cpp: find, then replace once). A path
// without it is used as it is.
func expandPath(resolved string, targets []archTargets) []string {
	i := strings.Index(resolved, kpack.GfxArch)
	if i < 0 {
		return []string{resolved}
	}
	var out []string
	for _, at := range targets {
		for _, t := range at.targets {
			out = append(out, resolved[:i]+t+resolved[i+len(kpack.GfxArch):])
		}
	}
	return out
}

// resolvePath joins a relative search path to the binary's directory and
// normalises it, as the runtime's weakly_canonical does (symlinks are
// followed later, when the path is opened). Absolute paths and paths that
// climb out of the tree root cannot name a file of the build and give "".
func resolvePath(dir, sp string) string {
	if sp == "" || strings.HasPrefix(sp, "/") {
		return ""
	}
	j := path.Clean(path.Join(dir, sp))
	if j == ".." || strings.HasPrefix(j, "../") {
		return ""
	}
	return j
}

// ResolvePath is resolvePath for callers that report where a search path
// points: "" when it is absolute or leaves the tree root.
func ResolvePath(dir, sp string) string { return resolvePath(dir, sp) }

// Load simulates the fetch of kernel key under loader l over the plan's
// candidates (SPEC 4 step 5; rocm-kpack and rocm-systems loader.cpp).
//
// ROCM_KPACK_DISABLE: NOT_IMPLEMENTED (8). Legacy with a Faulted archive on
// the path list: kpack.Abort (it opens every path before searching). No
// archive opened: ARCHIVE_NOT_FOUND (13). Legacy: the first candidate's
// fetch result, or ARCH_NOT_FOUND (14) when there is none. Fall-through:
// every candidate in order, repeats included, until one succeeds; on a
// total miss the error of the last candidate tried, else ARCH_NOT_FOUND.
// A fetch that aborts the process (kpack.Abort) ends the load under both.
func (p *Plan) Load(src Source, key string, l finding.Loader) Result {
	switch {
	case p.Disabled:
		return Result{Code: kpack.NotImplemented}
	case l == finding.Legacy && len(p.Faulted) > 0:
		return Result{Code: kpack.Abort, Archive: p.Faulted[0]}
	case len(p.Opened) == 0:
		return Result{Code: kpack.ArchiveNotFound}
	case len(p.Candidates) == 0:
		return Result{Code: kpack.ArchNotFound}
	}
	var r Result
	first := 0 // next entry of p.firsts
	for i, c := range p.Candidates {
		if i == MaxTraceSteps && len(p.Candidates) > MaxTraceSteps+1 {
			return p.loadRest(src, key, r, first)
		}
		step := Step{Candidate: c}
		if first < len(p.firsts) && p.firsts[first] == i {
			step.Code = src.Fetch(c.Archive, key, c.Target)
			first++
		} else { // a repeat: its pair's first candidate is an earlier step
			step.Code, step.Again = r.Trace[p.firsts[p.pairOf[i]]].Code, true
		}
		r.Trace = append(r.Trace, step)
		r.Code = step.Code
		switch {
		case step.Code == kpack.Success:
			r.Archive, r.Target = c.Archive, c.Target
			return r
		case step.Code == kpack.Abort:
			r.Archive = c.Archive
			return r
		case l == finding.Legacy:
			return r
		}
	}
	return r
}

// loadRest goes on with a fall-through load past its first MaxTraceSteps
// candidates (r.Trace), the pairs before p.firsts[first] fetched there:
// only the pairs not fetched yet can change the outcome (a repeat gets its
// pair's code), so it fetches those in order and ends at the first that
// succeeds or aborts, else at the last candidate, whose pair's code is the
// load's. The trace gets that last step; Omitted counts the steps between.
func (p *Plan) loadRest(src Source, key string, r Result, first int) Result {
	end := len(p.Candidates) - 1
	later := map[int]kpack.Code{} // codes of the pairs fetched here, by pair
	for ; first < len(p.firsts); first++ {
		i := p.firsts[first]
		c := p.Candidates[i]
		code := src.Fetch(c.Archive, key, c.Target)
		later[first] = code
		if code == kpack.Success || code == kpack.Abort {
			end = i
			break
		}
	}
	c := p.Candidates[end]
	pair := p.pairOf[end]
	step := Step{Candidate: c, Again: p.firsts[pair] != end}
	if code, ok := later[pair]; ok {
		step.Code = code
	} else {
		step.Code = r.Trace[p.firsts[pair]].Code
	}
	r.Omitted = end - MaxTraceSteps
	r.Trace = append(r.Trace, step)
	r.Code = step.Code
	switch step.Code {
	case kpack.Success:
		r.Archive, r.Target = c.Archive, c.Target
	case kpack.Abort:
		r.Archive = c.Archive
	}
	return r
}

// Serves tells which candidate serves the kernel under each loader without
// building a Result: code(i) is the fetch result of candidate i (called
// in candidate order, at most once each, only as far as a loader gets),
// and each answer is the serving candidate's index, or -1 when that
// loader's load fails (Load then gives its error and trace). It follows
// Load's rules; a repeated candidate must get the same code as its first
// appearance, as in the runtime.
func (p *Plan) Serves(code func(i int) kpack.Code) (legacy, fall int) {
	if p.Disabled || len(p.Opened) == 0 || len(p.Candidates) == 0 {
		return -1, -1
	}
	legacy = -1
	for _, i := range p.firsts { // a repeat gets the code of its pair's first candidate
		switch code(i) {
		case kpack.Success:
			if i == 0 && len(p.Faulted) == 0 {
				legacy = 0
			}
			return legacy, i
		case kpack.Abort:
			return -1, -1
		}
	}
	return -1, -1
}

// Resolve plans and loads one kernel key in one call.
func Resolve(src Source, req Request, key string, l finding.Loader) (Result, *Plan) {
	p := NewPlan(src, req)
	return p.Load(src, key, l), p
}
