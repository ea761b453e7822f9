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
// first 64 bytes of code objects and the bytes of lazy index files with
// Options.Deep. It never fails: unreadable files are misses or notes.
package kerneldb

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
	"github.com/rocm-tools/kpack-lint/vfs"
)

// Library names one modelled library.
type Library string

// The libraries kerneldb models.
const (
	RocBLAS   Library = "rocBLAS"
	HipBLASLt Library = "hipBLASLt"
	MIOpen    Library = "MIOpen"
)

// Libraries lists the modelled libraries in report order.
var Libraries = []Library{RocBLAS, HipBLASLt, MIOpen}

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
	// Slow: the library works but compiles or searches at run time
	// (MIOpen kernel, find and perf databases).
	Slow Effect = "slows down"
)

// Severe reports whether the effect breaks calls (everything but Slow).
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
	MissingPlaceholder Kind = "placeholder"      // --deep: a sub-library the index names
	MissingCodeObject  Kind = "code-object"      // --deep: a sub-library's code object
	WrongCodeObject    Kind = "wrong-code-object"
	MissingKernelDB    Kind = "kernel-db" // MIOpen <base>.kdb / <DbId>.kdb
	MissingFindDB      Kind = "find-db"   // MIOpen <base>.HIP.fdb.txt
	MissingPerfDB      Kind = "perf-db"   // MIOpen <base>.db.txt / <base>.db
	UnknownCUs         Kind = "cu-count"  // MIOpen: only CU-specific files, CU count not given
)

// Options tunes Check.
type Options struct {
	// Env holds the libraries' environment variables (EnvRocBLAS,
	// EnvHipBLASLt, EnvMIOpen) with paths relative to the build root (a
	// leading "/" is read as the build root); other keys are ignored.
	Env map[string]string
	// CUs gives, per processor ("gfx942"), the compute-unit counts its
	// devices report (hipDeviceProp_t multiProcessorCount: on gfx10/11/12
	// that is the WGP count, half the marketing CU count). MIOpen's
	// CU-specific file names (gfx942130.kdb) are checked only for these.
	CUs map[string][]int
	// Deep parses lazy index files to check every sub-library and code
	// object they name, and decodes code objects' ELF headers.
	Deep bool
}

// Env variable names read by the libraries.
const (
	EnvRocBLAS   = "ROCBLAS_TENSILE_LIBPATH"
	EnvHipBLASLt = "HIPBLASLT_TENSILE_LIBPATH"
	EnvMIOpen    = "MIOPEN_SYSTEM_DB_PATH"
)

// IsEnvVar reports whether name is an environment variable kerneldb reads.
func IsEnvVar(name string) bool {
	return name == EnvRocBLAS || name == EnvHipBLASLt || name == EnvMIOpen
}

// envVar returns the variable lib reads its database folder from.
func envVar(lib Library) string {
	switch lib {
	case RocBLAS:
		return EnvRocBLAS
	case HipBLASLt:
		return EnvHipBLASLt
	}
	return EnvMIOpen
}

// Result is everything Check found.
type Result struct {
	Sites   []*Site   // judged libraries, sorted by library then path
	Skipped []*Site   // libraries whose database is not in the inputs at all (Site.Why)
	Lookups []*Lookup // one per judged site and agent, in site then agent order

	fs  *view
	opt Options
}

// Site is one shipped library (all names of it in one folder: a file and
// its versioned symlinks) and where its database lives.
type Site struct {
	Library Library
	Path    string   // the library file (a regular file when there is one)
	Input   int      // input the file came from
	Names   []string // every tree path naming this library in its folder, sorted
	Dir     string   // folder the library is loaded from
	// Base is the database folder after the library's base probing (before
	// any per-arch subfolder); BaseFrom says how it was chosen: the
	// environment variable's name or "library location".
	Base, BaseFrom string
	BaseSteps      []Step // the probing, in order
	// Arches counts the database files under Base per processor (TheRock
	// arch attribution: per-arch subfolders or the arch in the file name).
	Arches map[string]*ArchFiles
	// Why is set on skipped sites: why the library was not judged.
	Why string

	yaml    bool // the Tensile library is YAML (TensileLibrary*.yaml, no .dat)
	lazy    bool // a TensileLibrary_lazy_* index is shipped under Base
	nonLazy bool // a TensileLibrary_<proc> (non-lazy) index is shipped under Base
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
}

// Miss is one thing the library fails to open (or, with Deep, opens but
// cannot use).
type Miss struct {
	Kind   Kind
	Paths  []string // the files concerned, sorted
	Tried  []string // for a search: every name tried, in order
	Effect Effect
	// Text is what the user sees (the library's own message where it
	// prints one) and what follows.
	Text string
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
	r := &Result{fs: newView(t), opt: opt}
	for _, s := range findSites(t) {
		s.resolveBase(r.fs, opt.Env)
		if s.Why != "" {
			r.Skipped = append(r.Skipped, s)
			continue
		}
		scanBase(r.fs, s)
		r.Sites = append(r.Sites, s)
	}
	return r
}

// Simulate runs every judged site's lookup for every agent ISA, appending
// to Lookups. Invalid agent ISAs are ignored (the caller validates them).
func (r *Result) Simulate(agents []string) {
	dc := newDeepCache(r.fs, r.opt.Deep)
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
	default:
		miopenLookup(fs, l, agent, opt.CUs[agent.Processor])
	}
	return l
}

// Folder is the site's database folder as messages name it (cleaned).
func (s *Site) Folder() string { return show(s.Base) }

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
// (TensileLibrary_lazy_<proc>.dat or .yaml), the files Deep reads whole.
func IsLazyIndex(p string) bool {
	name := path.Base(p)
	return strings.HasPrefix(name, "TensileLibrary_lazy_") && (strings.HasSuffix(name, ".dat") || strings.HasSuffix(name, ".yaml"))
}
