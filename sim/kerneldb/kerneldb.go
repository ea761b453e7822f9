// Package kerneldb simulates how rocBLAS, hipBLASLt and MIOpen find their
// per-architecture kernel databases at run time: loose files next to the
// library (TheRock copies them into per-arch device packages, SPEC 7), not
// kpack archives. For each shipped library and each simulated agent it
// follows the library's own lookup (base folder from the library's
// location or its environment variable, per-arch subfolder, index-file
// order, xnack variants, lazy code objects) over the virtual file tree and
// records what the library would fail to open, with the error the user
// would see and what it does to the program (Effect).
//
// Each library's rules are in its own file with the upstream source they
// follow: rocblas.go (rocm-libraries projects/rocblas/library/src/
// tensile_host.cpp), hipblaslt.go (projects/hipblaslt/.../rocblaslt/src/
// tensile_host.cpp), tensile.go (the shared Tensile host: lazy loading,
// placeholder libraries, xnack variants), miopen.go (projects/miopen
// target_properties, handle GetDbBasename, kern_db GetDb). names.go holds
// the file-name conventions of TheRock's database_handlers.py.
//
// The package reads the tree only: names and symlinks for the lookup, the
// libraries' DT_SONAME and read-only data (the variables and mapping file
// names they use), and with Options.Deep the first 64 bytes of code
// objects, offload bundles' entry tables and the bytes of lazy index files,
// each within a documented bound (MaxIndexBytes, MaxYAMLIndexBytes,
// MaxYAMLNodes, MaxPlaceholders, MaxScanEntries, MaxMissPaths). It never
// fails: unreadable files are misses or notes, and a bound that is hit is a
// LimitHit miss or Site.ScanLimit, never a silent pass.
package kerneldb

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Library names one modelled library.
type Library string

// The libraries kerneldb models.
const (
	RocBLAS   Library = "rocBLAS"
	HipBLASLt Library = "hipBLASLt"
	MIOpen    Library = "MIOpen"
	AOTriton  Library = "AOTriton" // aotriton.go: kernel images, not a Tensile library
)

// Libraries lists the modelled libraries in report order.
var Libraries = []Library{RocBLAS, HipBLASLt, MIOpen, AOTriton}

// Effect is what a file the library fails to open does to the program.
type Effect string

// Effects, most severe first.
const (
	// Abort: the library calls abort() at the first call on that GPU
	// (rocBLAS rocblas_abort).
	Abort Effect = "aborts"
	// Crash: the process dies with SIGSEGV when a call needs the file
	// (Tensile loadPlaceholderLibrary on a missing sub-library, TheRock#7790).
	Crash Effect = "crashes"
	// FailsLater: the library prints an error and carries on; calls on that
	// GPU that need the file fail (hipBLASLt, lazy code objects).
	FailsLater Effect = "fails later"
	// NotChecked: kpack-lint stopped at one of its documented limits
	// (MaxIndexBytes, MaxYAMLNodes, MaxPlaceholders, MaxScanEntries) and
	// cannot say what the library does; reported like a failure so that a
	// hostile or runaway input never passes silently.
	NotChecked Effect = "not checked"
	// Slow: the library works but compiles or searches at run time
	// (MIOpen kernel, find and perf databases).
	Slow Effect = "slows down"
)

// Severe reports whether the effect breaks calls or could not be ruled
// out (everything but Slow).
func (e Effect) Severe() bool { return e != Slow }

// Kind says what a Miss is about.
type Kind string

// The kinds of misses.
const (
	MissingFolder      Kind = "library-folder"   // the per-arch lookup folder does not exist
	MissingIndex       Kind = "index"            // no TensileLibrary*.dat/.yaml the library accepts
	MissingHelper      Kind = "lazy-kernels"     // Kernels.so-000-<proc>[-xnack±].hsaco
	NoCodeObjects      Kind = "code-objects"     // non-lazy: no *<proc>*co file
	BadIndex           Kind = "unreadable-index" // --deep: the index does not parse
	MissingMapping     Kind = "library-mapping"  // hipBLASLt TensileLiteLibrary_lazy_<proc>_Mapping.dat
	LimitHit           Kind = "limit"            // a kpack-lint limit stopped the check (Effect NotChecked)
	MissingPlaceholder Kind = "placeholder"      // --deep: a sub-library the index names
	MissingCodeObject  Kind = "code-object"      // --deep: a sub-library's code object
	WrongCodeObject    Kind = "wrong-code-object"
	MissingKernelDB    Kind = "kernel-db"        // MIOpen <base>.kdb / <DbId>.kdb
	MissingFindDB      Kind = "find-db"          // MIOpen <base>.HIP.fdb.txt
	MissingPerfDB      Kind = "perf-db"          // MIOpen <base>.db.txt / <base>.db
	UnknownCUs         Kind = "cu-count"         // MIOpen: only CU-specific files, CU count not given
	MissingImages      Kind = "aotriton-images"  // AOTriton: no aotriton.images/amd-<family>/ for the agent
	UnsupportedArch    Kind = "aotriton-no-arch" // AOTriton: the processor is not in its table or build
)

// Options tunes Check.
type Options struct {
	// Env holds the libraries' environment variables (EnvRocBLAS,
	// EnvHipBLASLt, EnvMIOpen) with paths relative to the build root (a
	// leading "/" is read as the build root), and EnvMIOpenCUs (a CU
	// count); other keys are ignored. A key that is present with an empty
	// value is set, as getenv sees it: rocBLAS then reads from "/" and
	// hipBLASLt from the working directory; MIOpen treats it as unset.
	Env map[string]string
	// CUs gives, per processor ("gfx942"), the compute-unit counts its
	// devices report (hipDeviceProp_t multiProcessorCount: on gfx10/11/12
	// that is the WGP count, half the marketing CU count). MIOpen's
	// CU-specific file names (gfx942130.kdb) are checked only for these.
	CUs map[string][]int
	// HIP is the HIP release row (sim/hip, --hip: "5.2" ... "newest");
	// a ROCm release ships the rocBLAS and hipBLASLt of the same release,
	// so it picks their lookups where the library itself does not say
	// which release it is (rocblasRelease, hipblasltRelease). "" is
	// unset: the library's own evidence, else the newest.
	HIP string
	// Deep parses lazy index files to check every sub-library and code
	// object they name, and decodes code objects' ELF headers.
	Deep bool
}

// Env variable names read by the libraries.
const (
	EnvRocBLAS   = "ROCBLAS_TENSILE_LIBPATH"
	EnvHipBLASLt = "HIPBLASLT_TENSILE_LIBPATH"
	EnvMIOpen    = "MIOPEN_SYSTEM_DB_PATH"
	// EnvMIOpenCUs overrides the CU count MIOpen names its databases
	// after (Handle::GetMaxComputeUnits in projects/miopen/src/hip/
	// handlehip.cpp: a value above 0 replaces the device's
	// multiProcessorCount for every device).
	EnvMIOpenCUs = "MIOPEN_DEVICE_CU"
)

// IsEnvVar reports whether name is an environment variable kerneldb reads.
func IsEnvVar(name string) bool {
	return name == EnvRocBLAS || name == EnvHipBLASLt || name == EnvMIOpen || name == EnvMIOpenCUs
}

// CheckEnv validates a value of one of the variables kerneldb reads:
// MIOPEN_DEVICE_CU must be a whole number (0, or empty, leaves the device's
// count); the path variables take any value.
func CheckEnv(name, value string) error {
	if name != EnvMIOpenCUs || value == "" {
		return nil
	}
	if _, err := envCUs(value); err != nil {
		return fmt.Errorf("%s=%q: %v", name, value, err)
	}
	return nil
}

// envCUs parses MIOPEN_DEVICE_CU: 0 for empty or zero (unset).
func envCUs(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
	if err != nil || n > maxEnvCUs {
		return 0, fmt.Errorf("want a number of compute units from 0 to %d", maxEnvCUs)
	}
	return int(n), nil
}

// maxEnvCUs bounds MIOPEN_DEVICE_CU (the policy's cu_counts use the same
// bound, policy.MaxCUs).
const maxEnvCUs = 1 << 16

// envVar returns the variable lib reads its database folder from, ""
// for AOTriton, which reads none.
func envVar(lib Library) string {
	switch lib {
	case RocBLAS:
		return EnvRocBLAS
	case HipBLASLt:
		return EnvHipBLASLt
	case AOTriton:
		return ""
	}
	return EnvMIOpen
}

// Result is everything Check found.
type Result struct {
	Sites   []*Site   // judged libraries, sorted by library then path
	Skipped []*Site   // libraries whose database is not in the inputs at all (Site.Why)
	Lookups []*Lookup // one per judged site and agent, in site then agent order
	// Requirements are the device wheels whose METADATA requires wheels
	// that are not among the inputs (wheels.go).
	Requirements []Requirement
	// Extras are the distributions whose METADATA provides extras, with
	// what each extra requires (extras.go); Distributions names every
	// distribution with a METADATA in the inputs (PEP 503 normalised,
	// sorted, distinct).
	Extras        []WheelExtras
	Distributions []string

	fs  *view
	opt Options
	// dc and variants serve LookupAgent: the deep reads and the sites
	// resolved per (release, environment).
	dc       *deepCache
	variants map[string]*Result
}

// Site is one shipped library (all names of it in one folder: a file and
// its versioned symlinks) and where its database lives.
type Site struct {
	Library Library
	// Path is the library as messages name it: the regular file when it
	// lies in Dir, else the name (a symlink) the process opens there.
	Path  string
	Input int      // input Path came from
	Names []string // every tree path naming this library (the file and its symlinks), sorted
	Dir   string   // folder the library is loaded from (findSites)
	// Base is the database folder after the library's base probing (before
	// any per-arch subfolder); BaseFrom says how it was chosen: the
	// environment variable's name or "library location".
	Base, BaseFrom string
	BaseSteps      []Step // the probing, in order
	// Arches counts the database files under Base per processor (TheRock
	// arch attribution: per-arch subfolders or the arch in the file name).
	Arches map[string]*ArchFiles
	// Release is, for rocBLAS and hipBLASLt, the release whose lookup the
	// library follows (a RocBLASRow's name and cover; Release6, Release7)
	// and ReleaseFrom why (its SONAME, version, --hip, ...); "" for the
	// other libraries.
	Release, ReleaseFrom string
	// HipBLASLtRow is, for hipBLASLt, the row of its lookup within the
	// release (HipBLASLt55, HipBLASLt62, HipBLASLt70, HipBLASLt5354).
	HipBLASLtRow string
	// Why is set on skipped sites: why the library was not judged.
	Why string
	// ScanLimit is set when Base held more than MaxScanEntries entries:
	// Arches counts only the first ones (a LimitHit finding says so).
	ScanLimit bool

	yaml    bool // the Tensile library is YAML (TensileLibrary*.yaml, no .dat)
	lazy    bool // a TensileLibrary_lazy_* index is shipped under Base
	nonLazy bool // a TensileLibrary_<proc> (non-lazy) index is shipped under Base
	// cwd: hipBLASLt reads its files relative to the process's working
	// directory (HIPBLASLT_TENSILE_LIBPATH empty, or no library folder next
	// to the library), which is not part of the inputs.
	cwd bool
	// mappings: a TensileLiteLibrary_lazy_*Mapping.dat(.zlib) ships under
	// Base (hipBLASLt).
	mappings bool
	// mapping says which lazy mapping file hipBLASLt reads, from its
	// read-only data (hipblaslt.go mappingNames); "" until asked.
	mapping string
	// pathIsLink: Path is a symlink (the file lies in another folder).
	pathIsLink bool
	// windows: the library is a Windows DLL (rocblas.dll, hipblaslt.dll,
	// MIOpen.dll): its folder name ends in a separator (rocBLAS) and
	// MIOpen reads its databases from the working directory.
	windows bool
	// rocblas is the rocBLAS lookup row (rocblas_release.go) and
	// versioned the versioned folder the library names (Debian), for
	// rocBLAS sites.
	rocblas   RocBLASRow
	versioned string
	// AOTriton: the version table its lookup follows, why, and the image
	// folders its read-only data names (aotritonGeneration).
	aotriton      aotritonGen
	aotritonWhy   string
	aotritonNamed []string
}

// ArchFiles is the set of database files attributed to one processor.
type ArchFiles struct {
	Count int
	Bytes int64
	First string // first path, sorted
	Input int    // input of First
}

// Step is one probe of a lookup: a path the library tests or opens.
type Step struct {
	Path  string // slash path relative to the build root, cleaned
	Found bool
	Note  string // what the library does with it ("used", "lazy index", ...)
	// CUs is the device CU count a MIOpen probe is for (its file names
	// carry it); 0 for probes that do not depend on it.
	CUs int
}

// Lookup is the simulated lookup of one site for one agent.
type Lookup struct {
	Site      *Site
	Agent     string // agent ISA, e.g. "gfx90a:sramecc+:xnack-"
	Processor string
	DbID      string // MIOpen's DbId; "" for the Tensile libraries
	Dir       string // folder the library reads, after per-arch probing
	Index     string // index file found ("" when none)
	Lazy      bool
	Steps     []Step
	Misses    []Miss

	withCUs bool // MIOpen: CU counts were given for the processor
	perArch bool // Dir is a per-arch subfolder the library chose
	// guarded is the per-arch folder hipBLASLt's PR 5354 guard refused
	// (no mapping file in it), "" otherwise.
	guarded string
}

// Miss is one thing the library fails to open (or, with Deep, opens but
// cannot use).
type Miss struct {
	Kind Kind
	// Paths are the files concerned, sorted, at most MaxMissPaths of them;
	// Count is how many there are in all (>= len(Paths)).
	Paths []string
	Count int
	// Exist is set when Paths name files that exist but that the library
	// cannot use (an index that does not parse or is over a limit, code
	// objects built for another target); otherwise they are missing.
	Exist bool
	Tried []string // for a search: every name tried, in order
	// Effect is what the miss does to the program.
	Effect Effect
	// Text is what the user sees (the library's own message where it
	// prints one) and what follows. It names no agent: one miss stands for
	// every agent that meets it.
	Text string
}

// MaxMissPaths bounds the paths a Miss keeps (Miss.Count has the total):
// an index naming a million missing sub-libraries must not make a
// million-line report.
const MaxMissPaths = 1000

// newMiss returns a Miss for paths (sorted, deduplicated, capped at
// MaxMissPaths).
func newMiss(k Kind, paths []string, e Effect, text string) Miss {
	ps := slices.Clone(paths)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	n := len(ps)
	if n > MaxMissPaths {
		ps = ps[:MaxMissPaths:MaxMissPaths]
	}
	return Miss{Kind: k, Paths: ps, Count: n, Effect: e, Text: text}
}

// InputOf returns the input the file at tree path p comes from.
func (r *Result) InputOf(p string) (int, bool) {
	e := r.fs.entry(p)
	if e == nil {
		return 0, false
	}
	return e.Input, true
}

// Check simulates every shipped library's lookup for every agent ISA:
// Scan, then Simulate.
func Check(t *vfs.Tree, agents []string, opt Options) *Result {
	r := Scan(t, opt)
	r.Simulate(agents)
	return r
}

// Scan finds the shipped libraries, their database folders and the
// per-arch file sets; Simulate then runs the lookups.
func Scan(t *vfs.Tree, opt Options) *Result {
	md := readAllMetadata(t)
	r := &Result{fs: newView(t), opt: opt, Requirements: requirementsOf(md), Extras: extrasOf(md), Distributions: distributions(md)}
	r.scanSites(t)
	return r
}

// scanSites resolves every shipped library under r.opt.
func (r *Result) scanSites(t *vfs.Tree) {
	opt := r.opt
	if rel, err := hip.Lookup(opt.HIP); err == nil && opt.HIP != "" {
		opt.HIP = rel.Name // "6.4" is the "7.2" row, "5.2.3" the "5.2" row
	}
	for _, s := range findSites(t) {
		s.windows = strings.HasSuffix(strings.ToLower(s.Path), ".dll")
		switch s.Library {
		case HipBLASLt:
			s.Release, s.ReleaseFrom = hipblasltRelease(r.fs, s)
			if fam, ok := hipblasltFamilyFromHIP(opt.HIP); ok && strings.HasPrefix(s.ReleaseFrom, "the newest") {
				s.Release, s.ReleaseFrom = fam, "--hip "+opt.HIP+" (the hipBLASLt of that ROCm release)"
			}
			s.HipBLASLtRow = hipblasltRowFor(s.Release, opt.HIP)
		case RocBLAS:
			ev := readRocblasEvidence(r.fs, s)
			s.rocblas, s.ReleaseFrom = rocblasRelease(ev, opt.HIP)
			s.Release = "rocBLAS " + s.rocblas.Name + " (" + s.rocblas.Covers + ")"
			s.versioned = ev.versionedDir
		}
		s.resolveBase(r.fs, opt.Env)
		if s.Why != "" {
			r.Skipped = append(r.Skipped, s)
			continue
		}
		scanBase(r.fs, s)
		r.Sites = append(r.Sites, s)
	}
}

// Env returns the libraries' environment r was checked with
// (Options.Env; nil for none), for LookupAgent.
func (r *Result) Env() map[string]string { return r.opt.Env }

// LookupAgent simulates every judged library's lookup for one agent ISA
// ("gfx942:sramecc+:xnack-") under a HIP release (a sim/hip row name as
// --hip takes it, "" for none) and the libraries' environment variables
// (as Options.Env; nil for none). It is the per-device entry point for
// machines: each (release, environment) resolves the sites once (base
// folders, the release's lookup, per-arch files), cached on r and sharing
// r's file reads, so a machine of many devices costs one lookup per
// device. The result holds one Lookup per site judged under that release
// and environment, in site order; Skipped is not consulted. An invalid
// agent ISA is an error; Lookups of r are not changed.
func (r *Result) LookupAgent(agent, release string, env map[string]string) ([]*Lookup, error) {
	id, err := targetid.Parse(agent)
	if err != nil {
		return nil, err
	}
	v := r.variant(release, env)
	if r.dc == nil {
		r.dc = newDeepCache(r.fs, r.opt.Deep)
	}
	out := make([]*Lookup, 0, len(v.Sites))
	for _, s := range v.Sites {
		out = append(out, lookup(r.fs, r.dc, s, id, v.opt))
	}
	return out, nil
}

// variant is r re-scanned under another release and environment (r itself
// when they are r's), cached.
func (r *Result) variant(release string, env map[string]string) *Result {
	if release == r.opt.HIP && maps.Equal(env, r.opt.Env) {
		return r
	}
	keys := slices.Sorted(maps.Keys(env))
	k := release
	for _, name := range keys {
		k += "\x00" + name + "=" + env[name]
	}
	if v := r.variants[k]; v != nil {
		return v
	}
	opt := r.opt
	opt.HIP, opt.Env = release, env
	v := &Result{fs: r.fs, opt: opt}
	v.scanSites(r.fs.t)
	if r.variants == nil {
		r.variants = map[string]*Result{}
	}
	r.variants[k] = v
	return v
}

// Simulate runs every judged site's lookup for every agent ISA, appending
// to Lookups. Invalid agent ISAs are ignored (the caller validates them).
func (r *Result) Simulate(agents []string) {
	if r.dc == nil {
		r.dc = newDeepCache(r.fs, r.opt.Deep)
	}
	dc := r.dc
	for _, s := range r.Sites {
		for _, a := range agents {
			id, err := targetid.Parse(a)
			if err != nil {
				continue
			}
			r.Lookups = append(r.Lookups, lookup(r.fs, dc, s, id, r.opt))
		}
	}
}

// Processors lists, sorted, every processor the judged sites ship
// database files for.
func (r *Result) Processors() []string {
	seen := map[string]bool{}
	for _, s := range r.Sites {
		for p := range s.Arches {
			seen[p] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// lookup runs the site's library model for one agent.
func lookup(fs *view, dc *deepCache, s *Site, agent targetid.ID, opt Options) *Lookup {
	l := &Lookup{Site: s, Agent: agent.String(), Processor: agent.Processor}
	switch s.Library {
	case RocBLAS:
		rocblasLookup(fs, dc, l, agent)
	case HipBLASLt:
		hipblasltLookup(fs, dc, l, agent)
	case AOTriton:
		aotritonLookup(fs, l, agent)
	default:
		cus, fromEnv := miopenCUs(opt, agent.Processor)
		miopenLookup(fs, l, agent, cus, fromEnv)
	}
	return l
}

// miopenCUs returns the CU counts MIOpen's lookup uses for a processor:
// MIOPEN_DEVICE_CU when it is above 0 (fromEnv), else the policy's counts
// without repeats, in the order given.
func miopenCUs(opt Options, proc string) (cus []int, fromEnv bool) {
	if n, err := envCUs(opt.Env[EnvMIOpenCUs]); err == nil && n > 0 {
		return []int{n}, true
	}
	seen := map[int]bool{}
	for _, n := range opt.CUs[proc] {
		if !seen[n] {
			seen[n] = true
			cus = append(cus, n)
		}
	}
	return cus, false
}

// Folder is the site's database folder as messages name it (cleaned).
// When hipBLASLt reads relative to the working directory it is the folder
// it should have found next to the library, or "" when the variable is
// set but empty.
func (s *Site) Folder() string {
	switch {
	case s.cwd && s.BaseFrom == envVar(s.Library):
		return ""
	case s.cwd:
		return show(hipblasltBases(s.Dir)[0])
	}
	return show(s.Base)
}

// CwdDir is Lookup.Dir when hipBLASLt reads relative to the process's
// working directory (outside the inputs).
const CwdDir = cwdName

// Processors returns the processors of the sites' database files, sorted.
func (s *Site) Processors() []string {
	return slices.Sorted(maps.Keys(s.Arches))
}

// WithoutCUs lists, sorted, the processors of MIOpen lookups made without
// a CU count: only their DbId-level kernel database was checked.
func WithoutCUs(r *Result) []string {
	if r == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, l := range r.Lookups {
		if l.Site.Library == MIOpen && !l.withCUs {
			seen[l.Processor] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// IsLazyIndex reports whether p names a lazy Tensile index
// (TensileLibrary_lazy_<proc>.dat, .dat.zlib or .yaml), the files Deep
// reads whole.
func IsLazyIndex(p string) bool {
	name := path.Base(p)
	return strings.HasPrefix(name, "TensileLibrary_lazy_") && hasExt(name, []string{".dat", ".dat" + zlibExt, ".yaml"})
}
