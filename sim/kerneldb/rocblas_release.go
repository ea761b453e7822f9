package kerneldb

import (
	"fmt"
	"path"
	"regexp"
	"strconv"

	"github.com/rocm-tools/kpack-lint/sim/hip"
)

// RocBLASRow is one generation of rocBLAS's kernel-database lookup
// (library/src/tensile_host.cpp, TensileHost::initialize), read at each
// release tag of ROCm/rocBLAS and, for the newest, in ROCm/rocm-libraries
// projects/rocblas. Every field but Name and Covers is a cell citing the
// file:line@tag that decides it; "inferred" marks a cell not read in that
// release's own source, with the nearest release that was.
type RocBLASRow struct {
	// Name is the row's key ("5.2", "5.3-5.5", ..., "newest").
	Name string
	// Covers says which rocBLAS and ROCm releases follow the row.
	Covers string
	// Bases are the base folders tried next to the library's folder when
	// ROCBLAS_TENSILE_LIBPATH is unset, in order; the last is the default,
	// used untested when none of the others exists.
	Bases hip.Cell[[]string]
	// GluedLibrary: the "library" candidate is tested as the folder name
	// with "library" glued on, no '/' (lib + library = liblibrary), and
	// used with the '/': on Linux it never matches a real layout.
	GluedLibrary hip.Cell[bool]
	// ArchWithEnv: the <proc>/ subfolder is probed under a base set by
	// ROCBLAS_TENSILE_LIBPATH too (earlier releases probe it only when
	// the base comes from the library's location).
	ArchWithEnv hip.Cell[bool]
	// XnackDir: <proc>-xnack+/ or <proc>-xnack-/ (the agent's mode) is
	// probed before <proc>/.
	XnackDir hip.Cell[bool]
	// LazyIndex: TensileLibrary_lazy_<proc>.dat is tried before
	// TensileLibrary_<proc>.dat and TensileLibrary.dat.
	LazyIndex hip.Cell[bool]
	// SkipOther: the "*<proc>*co" glob skips names holding the other
	// xnack mode and "Experimental".
	SkipOther hip.Cell[bool]
	// LoadFails is what a globbed code object that does not load does:
	// FailsLater (the result is discarded; the kernels in it are missing
	// on that GPU) or Abort (THROW_IF_HIP_ERROR_MESSAGE, caught by
	// get_library_and_adapter, rocblas_abort()).
	LoadFails hip.Cell[Effect]
	// ArchText: a missing index prints " for GPU arch : <proc>" and a
	// listing of the folder's index files (ROCBLAS_TENSILE_SEPARATE_ARCH
	// builds, TheRock's and AMD's).
	ArchText hip.Cell[bool]
}

// Sources of the rocBLAS table, in plain words (docs/kernel-databases.md, explain-db).
const (
	rbFile        = "library/src/tensile_host.cpp"
	rbNewest      = "rocm-libraries projects/rocblas/" + rbFile + " determine_tensile_base_path and TensileHost::initialize at 00255b93"
	rbMid         = "rocm-libraries projects/rocblas/" + rbFile + " at e61e87e0"
	rbLoadIgnored = "the result of adapter.loadCodeObjectFile is discarded; Tensile's loadCodeObjectFile returns the HIP error (Tensile/Source/lib/source/hip/HipSolutionAdapter.cpp:70@rocm-5.2.3, :100@rocm-5.5.1, :94@rocm-6.2.2)"
)

func cell[T any](v T, src string) hip.Cell[T] { return hip.Cell[T]{Value: v, Source: src} }

var (
	basesOld   = []string{"../../Tensile/library", "library", "rocblas/library"}
	bases60    = []string{"../../Tensile/library", "library", "../rocblas/library", "rocblas/library"}
	basesNewer = []string{"../../Tensile/library", "library", "../rocblas/library", "../Tensile/library", "rocblas/library"}
)

// rocblasRows is the table, oldest first; the last row is the newest.
var rocblasRows = []RocBLASRow{
	{
		Name: "5.2", Covers: "rocBLAS 2.44, ROCm 5.2",
		Bases:        cell(basesOld, rbFile+":580-585@rocm-5.2.3"),
		GluedLibrary: cell(true, rbFile+":582@rocm-5.2.3 (TestPath(path + \"library\"), then path += \"/library\")"),
		ArchWithEnv:  cell(false, rbFile+":587@rocm-5.2.3 (inside the else of if(env))"),
		XnackDir:     cell(false, rbFile+":587-588@rocm-5.2.3"),
		LazyIndex:    cell(false, rbFile+":592-601@rocm-5.2.3 (TensileLibrary_<proc>.dat, then TensileLibrary.dat)"),
		SkipOther:    cell(false, rbFile+":641-646@rocm-5.2.3"),
		LoadFails:    cell(FailsLater, rbFile+":646@rocm-5.2.3: "+rbLoadIgnored),
		ArchText:     cell(false, rbFile+":606-608@rocm-5.2.3"),
	},
	{
		Name: "5.3-5.5", Covers: "rocBLAS 2.45-2.47, ROCm 5.3-5.5, Debian 13's 5.5.1",
		Bases:        cell(basesOld, rbFile+":596-601@rocm-5.5.1 (initialize identical at rocm-5.3.3)"),
		GluedLibrary: cell(true, rbFile+":598@rocm-5.5.1"),
		ArchWithEnv:  cell(false, rbFile+":603@rocm-5.5.1 (inside the else of if(env))"),
		XnackDir:     cell(false, rbFile+":603-604@rocm-5.5.1"),
		LazyIndex:    cell(true, rbFile+":610-625@rocm-5.5.1"),
		SkipOther:    cell(false, rbFile+":673-678@rocm-5.5.1"),
		LoadFails:    cell(FailsLater, rbFile+":678@rocm-5.5.1: "+rbLoadIgnored),
		ArchText:     cell(false, rbFile+":630-632@rocm-5.5.1"),
	},
	{
		Name: "5.6", Covers: "rocBLAS 3.0, ROCm 5.6",
		Bases:        cell(basesOld, rbFile+":617-622@rocm-5.6.1"),
		GluedLibrary: cell(true, rbFile+":619@rocm-5.6.1"),
		ArchWithEnv:  cell(false, rbFile+":624@rocm-5.6.1"),
		XnackDir:     cell(false, rbFile+":624-625@rocm-5.6.1"),
		LazyIndex:    cell(true, rbFile+":631-646@rocm-5.6.1"),
		SkipOther:    cell(true, rbFile+":707-710@rocm-5.6.1"),
		LoadFails:    cell(FailsLater, rbFile+":711@rocm-5.6.1: "+rbLoadIgnored),
		ArchText:     cell(false, rbFile+":651-653@rocm-5.6.1"),
	},
	{
		Name: "5.7", Covers: "rocBLAS 3.1, ROCm 5.7",
		Bases:        cell(basesOld, rbFile+":661-666@rocm-5.7.1"),
		GluedLibrary: cell(false, rbFile+":663@rocm-5.7.1 (TestPath(path + \"/library\"))"),
		ArchWithEnv:  cell(false, rbFile+":668@rocm-5.7.1"),
		XnackDir:     cell(false, rbFile+":668-669@rocm-5.7.1"),
		LazyIndex:    cell(true, rbFile+":675-690@rocm-5.7.1"),
		SkipOther:    cell(true, rbFile+":769@rocm-5.7.1"),
		LoadFails:    cell(FailsLater, rbFile+":773@rocm-5.7.1: "+rbLoadIgnored),
		ArchText:     cell(true, rbFile+":694-715@rocm-5.7.1"),
	},
	{
		Name: "6.0", Covers: "rocBLAS 4.0, ROCm 6.0",
		Bases:        cell(bases60, rbFile+":721-730@rocm-6.0.2 (../rocblas/library for ASAN's lib/asan)"),
		GluedLibrary: cell(false, rbFile+":723@rocm-6.0.2"),
		ArchWithEnv:  cell(false, rbFile+":732@rocm-6.0.2 (inside the else of if(env))"),
		XnackDir:     cell(false, rbFile+":732-733@rocm-6.0.2"),
		LazyIndex:    cell(true, rbFile+":739-754@rocm-6.0.2"),
		SkipOther:    cell(true, rbFile+":858@rocm-6.0.2"),
		LoadFails:    cell(FailsLater, rbFile+":862@rocm-6.0.2: "+rbLoadIgnored),
		ArchText:     cell(true, rbFile+":758-779@rocm-6.0.2"),
	},
	{
		Name: "6.1-6.3", Covers: "rocBLAS 4.1-4.4, ROCm 6.1-6.3, 6.4 inferred the same",
		Bases:        cell(bases60, rbFile+":723-732@rocm-6.1.2, :760-769@rocm-6.2.2, :765-774@release-staging/rocm-rel-6.3 (computed once per process)"),
		GluedLibrary: cell(false, rbFile+":725@rocm-6.1.2"),
		ArchWithEnv:  cell(true, rbFile+":738@rocm-6.1.2, :791@rocm-6.2.2, :796@release-staging/rocm-rel-6.3 (after the base, whatever set it)"),
		XnackDir:     cell(false, rbFile+":738-739@rocm-6.1.2"),
		LazyIndex:    cell(true, rbFile+":744-759@rocm-6.1.2, :797-812@rocm-6.2.2"),
		SkipOther:    cell(true, rbFile+":863@rocm-6.1.2, :916@rocm-6.2.2"),
		LoadFails:    cell(FailsLater, rbFile+":867@rocm-6.1.2, :920@rocm-6.2.2, :925@release-staging/rocm-rel-6.3: "+rbLoadIgnored),
		ArchText:     cell(true, rbFile+":763-784@rocm-6.1.2, :816-837@rocm-6.2.2"),
	},
	{
		Name: "7.x", Covers: "rocBLAS 5.x before the xnack-folder probe: classic ROCm 7.0-7.2 and TheRock 7.12-10.0, inferred",
		Bases:        cell(basesNewer, rbMid+" (adds ../Tensile/library); inferred for these releases"),
		GluedLibrary: cell(false, rbMid),
		ArchWithEnv:  cell(true, rbMid+" (path = base_path; TestPath(path + \"/\" + processor))"),
		XnackDir:     cell(false, rbMid+"; inferred: TheRock#7976 (September 2026) still cites the <proc>/ probe alone"),
		LazyIndex:    cell(true, rbMid+" (tryLibrary: lazy, then TensileLibrary_<proc>, then TensileLibrary)"),
		SkipOther:    cell(true, rbMid),
		LoadFails:    cell(FailsLater, rbMid+" (adapter.loadCodeObjectFile(cofile), result discarded); inferred for these releases"),
		ArchText:     cell(true, rbMid),
	},
	{
		Name: "newest", Covers: "rocm-libraries develop with the xnack-folder probe, the newest read",
		Bases:        cell(basesNewer, rbNewest),
		GluedLibrary: cell(false, rbNewest),
		ArchWithEnv:  cell(true, rbNewest),
		XnackDir:     cell(true, rbNewest+" (library/<arch>-<xnack>/, then library/<arch>/, then library/)"),
		LazyIndex:    cell(true, rbNewest),
		SkipOther:    cell(true, rbNewest),
		LoadFails:    cell(Abort, rbNewest+" (THROW_IF_HIP_ERROR_MESSAGE(adapter.loadCodeObjectFile(cofile), \"loading code object: \" + cofile); get_library_and_adapter catches it and calls rocblas_abort())"),
		ArchText:     cell(true, rbNewest),
	},
}

// RocBLASRows returns the rocBLAS lookup table, oldest first.
func RocBLASRows() []RocBLASRow { return append([]RocBLASRow(nil), rocblasRows...) }

func rocblasRow(name string) RocBLASRow {
	for _, r := range rocblasRows {
		if r.Name == name {
			return r
		}
	}
	return rocblasRows[len(rocblasRows)-1]
}

// rocblasForHIP maps a HIP release row (sim/hip, --hip) to the rocBLAS
// row the same ROCm release ships: a ROCm release ships matching rocBLAS
// and HIP. The HIP row "5.2" covers ROCm up to 5.3 (rocBLAS 5.3 is the
// "5.3-5.5" row, told apart by its version), "5.6" covers 5.4-5.6 and
// "6.1" covers 6.0-6.1 (the rows of the newest release they cover).
var rocblasForHIP = map[string]string{
	"5.2": "5.2", "5.6": "5.6", "5.7": "5.7", "6.1": "6.1-6.3", "6.2": "6.1-6.3", "6.3": "6.1-6.3",
	"7.2": "7.x", "7.12": "7.x", "7.13": "7.x", "10.0": "7.x", "newest": "newest",
}

// rocblasByVersion is the row of a rocBLAS version (CMakeLists.txt
// VERSION_STRING at each tag: 2.44.0@rocm-5.2.3, 2.45.0@rocm-5.3.3,
// 2.47.0@rocm-5.5.1, 3.0.0@rocm-5.6.1, 3.1.0@rocm-5.7.1, 4.0.0@rocm-6.0.2,
// 4.2.1@rocm-6.2.2, 4.3.0@release-staging/rocm-rel-6.3); "" for 5.x and
// later, whose row --hip decides.
func rocblasByVersion(major, minor int) string {
	switch {
	case major < 2 || (major == 2 && minor <= 44):
		return "5.2"
	case major == 2:
		return "5.3-5.5"
	case major == 3 && minor == 0:
		return "5.6"
	case major == 3:
		return "5.7"
	case major == 4 && minor == 0:
		return "6.0"
	case major == 4:
		return "6.1-6.3"
	}
	return ""
}

// rocblasBySoname is the rows a SONAME major covers (rocblas_SOVERSION:
// 0.1 for rocBLAS 2.x, 3.x, 4.x, then 5 for ROCm 7), oldest first.
var rocblasBySoname = map[int][]string{
	0: {"5.2", "5.3-5.5"}, 3: {"5.6", "5.7"}, 4: {"6.0", "6.1-6.3"}, 5: {"7.x", "newest"},
}

// Version strings a rocBLAS library carries: Debian's versioned folder
// (0006-move-tensile-library-into-versioned-subdir: "/rocblas/<version>/
// library", tried first) and the "<major>.<minor>.<patch>." prefix of
// rocblas_get_version_string.
var (
	rocblasVersionedDir = regexp.MustCompile(`/rocblas/([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})/library`)
	rocblasVersionText  = regexp.MustCompile(`\x00([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.\x00`)
	rocblasSoname       = regexp.MustCompile(`^librocblas\.so\.([0-9]+)(\.|$)`)
)

// rocblasEvidence is what a rocBLAS library says of its own release.
type rocblasEvidence struct {
	soname       int    // SONAME major, -1 when unknown
	sonameText   string // "its SONAME librocblas.so.0"
	major, minor int    // version, major -1 when unknown
	versionFrom  string
	versionedDir string // Debian's "rocblas/<version>/library", "" when absent
}

// readRocblasEvidence reads the SONAME (else a versioned name) and the
// read-only data of the site's library (bounded by maxRodata).
func readRocblasEvidence(fs *view, s *Site) rocblasEvidence {
	ev := rocblasEvidence{soname: -1, major: -1}
	file := fs.entry(s.Path)
	if so := readSoname(file, fs.t.Budget()); so != "" {
		if m := rocblasSoname.FindStringSubmatch(so); m != nil {
			ev.soname, _ = strconv.Atoi(m[1])
			ev.sonameText = "its SONAME " + so
		}
	}
	if ev.soname < 0 {
		for _, n := range s.Names {
			if m := rocblasSoname.FindStringSubmatch(path.Base(n)); m != nil {
				ev.soname, _ = strconv.Atoi(m[1])
				ev.sonameText = "its name " + path.Base(n)
				break
			}
		}
	}
	found := fs.rodataMatch(file, rocblasVersionedDir, rocblasVersionText)
	if m := found[0]; m != nil {
		ev.major, ev.minor = atoi(m[1]), atoi(m[2])
		ev.versionedDir = fmt.Sprintf("rocblas/%s.%s.%s/library", m[1], m[2], m[3])
		ev.versionFrom = "its read-only data (\"/" + ev.versionedDir + "\", Debian's versioned folder)"
	} else if m := found[1]; m != nil && ev.agrees(atoi(m[1])) {
		ev.major, ev.minor = atoi(m[1]), atoi(m[2])
		ev.versionFrom = fmt.Sprintf("its version string %s.%s.%s", m[1], m[2], m[3])
	}
	return ev
}

// agrees reports whether a version major fits the SONAME major (0: 2.x);
// with no SONAME any major does.
func (ev rocblasEvidence) agrees(major int) bool {
	switch ev.soname {
	case -1:
		return true
	case 0:
		return major <= 2
	}
	return major == ev.soname
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// rocblasRelease picks the site's row and says why: the library's version
// (its own code is what runs), else its SONAME's range narrowed by --hip,
// else --hip's row, else the newest.
func rocblasRelease(ev rocblasEvidence, hipName string) (RocBLASRow, string) {
	hipRow, hipGiven := rocblasForHIP[hipName]
	if ev.major >= 0 {
		if name := rocblasByVersion(ev.major, ev.minor); name != "" {
			return rocblasRow(name), fmt.Sprintf("%s: rocBLAS %d.%d", ev.versionFrom, ev.major, ev.minor)
		}
	}
	if rows, ok := rocblasBySoname[ev.soname]; ok {
		if hipGiven && contains(rows, hipRow) {
			return rocblasRow(hipRow), ev.sonameText + " and --hip " + hipName
		}
		last := rows[len(rows)-1]
		why := ev.sonameText + fmt.Sprintf(" (rows %s; the newest taken)", joinRows(rows))
		if hipGiven {
			why += ", not --hip " + hipName + "'s, which ships another rocBLAS"
		}
		return rocblasRow(last), why
	}
	if hipGiven {
		return rocblasRow(hipRow), "--hip " + hipName + " (the rocBLAS of that ROCm release)"
	}
	return rocblasRow("newest"), "the newest, as neither the library nor --hip names another"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func joinRows(rows []string) string {
	out := ""
	for i, r := range rows {
		if i > 0 {
			out += ", "
		}
		out += r
	}
	return out
}
