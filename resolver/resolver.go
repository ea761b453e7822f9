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

	"github.com/rocm-tools/kpack-lint/kpack"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Loader selects the candidate policy of kpack_load_code_object.
type Loader string

const (
	// Legacy takes the first candidate only and returns its error on a miss
	// (rocm-kpack up to the ROCM-31644 fix, ROCm <= 7.14 wheels).
	Legacy Loader = "legacy"
	// Fallthrough tries every candidate in order, remembering the last
	// error (rocm-systems #9953 and the ROCM-31644 follow-up).
	Fallthrough Loader = "fallthrough"
)

// ParseLoader accepts "legacy" and "fallthrough" ("" gives Fallthrough).
func ParseLoader(s string) (Loader, bool) {
	switch s {
	case "", string(Fallthrough):
		return Fallthrough, true
	case string(Legacy):
		return Legacy, true
	}
	return "", false
}

// GfxArch is the placeholder the runtime replaces with each compatible
// target of each requested arch.
const GfxArch = "@GFXARCH@"

// Opened is an archive that exists and opens, as the runtime sees it.
type Opened struct {
	Path   string   // real path inside the tree, symlinks resolved
	Arches []string // the archive's declared gfx_arches
}

// Source is the file tree the simulated loader reads. Paths are
// slash-separated and relative to the tree root.
type Source interface {
	// Open returns the archive at p, or false when p does not exist or
	// fails to open (bad magic, truncated TOC, ...): the runtime skips such
	// paths silently.
	Open(p string) (Opened, bool)
	// Fetch fetches kernel key for target arch from the opened archive at
	// real path p, returning the runtime's result code.
	Fetch(p, key, arch string) kpack.Code
}

// Env is the loader's environment (SPEC 2): ROCM_KPACK_PATH replaces every
// embedded search path, ROCM_KPACK_PATH_PREFIX entries come first,
// ROCM_KPACK_DISABLE turns kpack loading off. Entries are paths relative to
// the tree root.
type Env struct {
	PathSet bool
	Path    []string
	Prefix  []string
	Disable bool
}

// Request names one load: the binary's search paths, the directory of the
// binary's real file (relative to the root, "." for the root) and the
// arch_list HIP passes (agent ISA first, then any generic fallbacks).
type Request struct {
	SearchPaths []string
	BinaryDir   string
	ArchList    []string
	Env         Env
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
	Paths      []string // expanded archive paths, in search order ("" where refused)
	Refused    []string // expanded paths, as written, that are absolute or leave the tree root
	Opened     []string // real paths of the archives that opened, de-duplicated, in order
	Real       []string // per Paths entry: the real path it opened as, "" when it did not open
	Candidates []Candidate
	Disabled   bool // ROCM_KPACK_DISABLE was set
}

// Step is one tried candidate and what its fetch returned.
type Step struct {
	Candidate
	Code kpack.Code
}

// Result is the outcome of one simulated kpack_load_code_object.
type Result struct {
	Code    kpack.Code
	Archive string // archive that served the kernel ("" on failure)
	Target  string // matched target that served it
	Trace   []Step // candidates tried, in order
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
		for _, x := range expandPath(sp.path, targets) {
			r := resolvePath(sp.dir, x)
			p.Paths = append(p.Paths, r)
			if r == "" {
				p.Refused = append(p.Refused, x)
			}
		}
	}
	opened := p.open(src)
	for _, at := range targets {
		for _, t := range at.targets {
			for _, o := range opened {
				if slices.Contains(o.Arches, t) {
					p.Candidates = append(p.Candidates, Candidate{Arch: at.arch, Target: t, Archive: o.Path})
				}
			}
		}
	}
	return p
}

func (p *Plan) open(src Source) []Opened {
	var out []Opened
	seen := map[string]bool{}
	p.Real = make([]string, len(p.Paths))
	for i, x := range p.Paths {
		if x == "" {
			continue
		}
		o, ok := src.Open(x)
		if !ok {
			continue
		}
		p.Real[i] = o.Path
		if seen[o.Path] {
			continue
		}
		seen[o.Path] = true
		out = append(out, o)
		p.Opened = append(p.Opened, o.Path)
	}
	return out
}

// searchPath is one search path and the directory it is relative to:
// the tree root for environment entries, the binary's directory for
// embedded paths.
type searchPath struct{ path, dir string }

func searchPaths(req Request) []searchPath {
	var out []searchPath
	if req.Env.PathSet {
		for _, e := range req.Env.Path {
			out = append(out, searchPath{e, "."})
		}
		return out
	}
	for _, e := range req.Env.Prefix {
		out = append(out, searchPath{e, "."})
	}
	for _, sp := range req.SearchPaths {
		out = append(out, searchPath{sp, req.BinaryDir})
	}
	return out
}

type archTargets struct {
	arch    string
	targets []string
}

// expandArchList gives, per arch_list entry, its compatible targets most
// specific first (SPEC 4.4). An entry that is not a valid target ID is used
// as it is.
func expandArchList(archs []string) []archTargets {
	out := make([]archTargets, 0, len(archs))
	for _, a := range archs {
		id, err := targetid.Parse(a)
		if err != nil {
			out = append(out, archTargets{arch: a, targets: []string{a}})
			continue
		}
		var ts []string
		for _, c := range targetid.CompatibleTargets(id) {
			ts = append(ts, c.String())
		}
		out = append(out, archTargets{arch: id.String(), targets: ts})
	}
	return out
}

func expandPath(sp string, targets []archTargets) []string {
	if !strings.Contains(sp, GfxArch) {
		return []string{sp}
	}
	var out []string
	for _, at := range targets {
		for _, t := range at.targets {
			out = append(out, strings.ReplaceAll(sp, GfxArch, t))
		}
	}
	return out
}

// resolvePath joins a relative search path to the binary's directory and
// normalises it. Absolute paths and paths that climb out of the tree root
// cannot name a file of the build and give "".
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
// candidates (SPEC 4 step 5).
//
// No archive opened: ARCHIVE_NOT_FOUND (13). Legacy: the first candidate's
// fetch result, or ARCH_NOT_FOUND (14) when there is none. Fall-through: the
// first success; else the last error when any candidate existed, else
// ARCH_NOT_FOUND.
func (p *Plan) Load(src Source, key string, l Loader) Result {
	if p.Disabled || len(p.Opened) == 0 {
		return Result{Code: kpack.ArchiveNotFound}
	}
	if len(p.Candidates) == 0 {
		return Result{Code: kpack.ArchNotFound}
	}
	var r Result
	tried := map[Candidate]bool{}
	for _, c := range p.Candidates {
		k := Candidate{Target: c.Target, Archive: c.Archive}
		if tried[k] {
			continue // the same archive and target again gives the same answer
		}
		tried[k] = true
		code := src.Fetch(c.Archive, key, c.Target)
		r.Trace = append(r.Trace, Step{Candidate: c, Code: code})
		r.Code = code
		if code == kpack.Success {
			r.Archive, r.Target = c.Archive, c.Target
			return r
		}
		if l == Legacy {
			return r
		}
	}
	return r
}

// Resolve plans and loads one kernel key in one call.
func Resolve(src Source, req Request, key string, l Loader) (Result, *Plan) {
	p := NewPlan(src, req)
	return p.Load(src, key, l), p
}
