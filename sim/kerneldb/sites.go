package kerneldb

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/elfsafe"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// findSites lists every shipped library: one site per library and folder
// it is loaded from. A process opens a library by its SONAME (the
// DT_NEEDED entry the linker recorded), so the name it loads is the one
// matching the SONAME: the SONAME symlink, or the file itself when it
// carries that name. rocBLAS and hipBLASLt take their folder from that
// name as the loader opened it (rocBLAS dl_iterate_phdr dlpi_name in
// tensile_host.cpp; hipBLASLt dladdr dli_fname in
// rocblaslt_internal_get_so_path, rocblaslt_auxiliary.cpp), neither
// resolving symlinks: a SONAME link in lib/ to a file in lib64/ looks in
// lib/. MIOpen canonicalises the path, so its folder is the file's. A file
// no SONAME name points at is loaded from its own folder (a copy in a wheel
// looks next to itself). The SONAME is read from the file's DT_SONAME;
// without one, the name with one version number (librocblas.so.5) is taken
// as the SONAME name.
func findSites(t *vfs.Tree) []*Site {
	byKey := map[string]*Site{}
	var order []string
	for _, f := range libraryFamilies(t) {
		for _, dir := range f.loadFolders() {
			key := string(f.lib) + "\x00" + dir
			s := byKey[key]
			if s == nil {
				s = &Site{Library: f.lib, Dir: dir}
				byKey[key] = s
				order = append(order, key)
			}
			f.addTo(s, dir)
		}
	}
	out := make([]*Site, 0, len(order))
	for _, k := range order {
		s := byKey[k]
		slices.Sort(s.Names)
		s.Names = slices.Compact(s.Names)
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Library != out[j].Library {
			return libraryRank(out[i].Library) < libraryRank(out[j].Library)
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// family is one library file and every name (itself, symlinks) that
// resolves to it.
type family struct {
	lib    Library
	file   *vfs.Entry   // the regular file
	names  []*vfs.Entry // every entry naming it, in tree order
	budget *inflate.Budget
}

// libraryFamilies groups the tree's library names by the file they
// resolve to; dangling links and links leaving the tree load nothing.
func libraryFamilies(t *vfs.Tree) []*family {
	byFile := map[string]*family{}
	var order []string
	for _, e := range t.Files() {
		lib, ok := libraryOf(path.Base(e.Path))
		if !ok {
			continue
		}
		file := e
		if e.IsLink() {
			r, _, err := t.Lookup(e.Path)
			if err != nil {
				continue
			}
			file = r
		}
		f := byFile[file.Path]
		if f == nil {
			f = &family{lib: lib, file: file, budget: t.Budget()}
			byFile[file.Path] = f
			order = append(order, file.Path)
		}
		f.names = append(f.names, e)
	}
	out := make([]*family, len(order))
	for i, p := range order {
		out[i] = byFile[p]
	}
	return out
}

// loadFolders are the folders the family's library is loaded from, sorted.
func (f *family) loadFolders() []string {
	if f.lib == MIOpen {
		return []string{path.Dir(f.file.Path)}
	}
	var dirs []string
	for _, e := range f.loadNames() {
		dirs = append(dirs, path.Dir(e.Path))
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// loadNames are the names a process opens the library by: those equal to
// its SONAME, else the file itself.
func (f *family) loadNames() []*vfs.Entry {
	soname := readSoname(f.file, f.budget)
	var out []*vfs.Entry
	for _, e := range f.names {
		name := path.Base(e.Path)
		if name == soname || (soname == "" && sonameLike.MatchString(name)) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return []*vfs.Entry{f.file}
	}
	return out
}

// sonameLike matches a name with exactly one version number
// (librocblas.so.5), what a library's SONAME looks like.
var sonameLike = regexp.MustCompile(`\.so\.[0-9]+$`)

// addTo adds the family's names to the site loaded from dir; Path becomes
// the regular file when it lies in dir, else the name the process opens.
func (f *family) addTo(s *Site, dir string) {
	for _, e := range f.names {
		s.Names = append(s.Names, e.Path)
	}
	pick := f.file
	if path.Dir(f.file.Path) != dir {
		for _, e := range f.loadNames() {
			if path.Dir(e.Path) == dir {
				pick = e
				break
			}
		}
	}
	if s.Path == "" || (pick == f.file && s.pathIsLink) {
		s.Path, s.Input, s.pathIsLink = pick.Path, pick.Input, pick != f.file
	}
}

func libraryRank(l Library) int {
	for i, x := range Libraries {
		if x == l {
			return i
		}
	}
	return len(Libraries)
}

// readSoname returns the library's DT_SONAME, "" when the file is not an
// ELF shared object or has none (debug/elf panics become "").
func readSoname(e *vfs.Entry, budget *inflate.Budget) (soname string) {
	defer func() {
		if recover() != nil {
			soname = ""
		}
	}()
	r, err := e.Open()
	if err != nil {
		return ""
	}
	defer r.Close()
	m := budget.Meter("the library " + e.Path)
	defer m.Flush()
	f, err := elfsafe.NewFile(r, m)
	if err != nil {
		return ""
	}
	names, err := elfsafe.DynString(f, elf.DT_SONAME, m)
	if err != nil || len(names) == 0 {
		return ""
	}
	return names[0]
}

// HasLibraries reports whether the tree ships any modelled library.
func HasLibraries(t *vfs.Tree) bool {
	for _, e := range t.Files() {
		if IsLibraryName(e.Path) {
			return true
		}
	}
	return false
}

// resolveBase picks the site's database folder as the library does
// (rocblasBases, hipblasltBases, miopenBase) or from its environment
// variable, and sets Why when the library is not judged: its database is
// absent from the inputs and nothing says it needs one.
func (s *Site) resolveBase(fs *view, env map[string]string) {
	if s.Library == AOTriton {
		s.aotritonBase(fs)
		if !fs.isDir(s.Base) && !fs.rodata(fs.entry(s.Path), aotritonImages)[0] {
			s.Why = fmt.Sprintf("no %s in the inputs and %s does not name %s (built without packed images, or they ship in a package not given)",
				show(s.Base), path.Base(s.Path), aotritonImages)
		}
		s.aotriton, s.aotritonWhy, s.aotritonNamed = aotritonGeneration(fs, s)
		return
	}
	name := envVar(s.Library)
	// rocBLAS and hipBLASLt test only if(env): an empty value is used.
	// MIOpen reads an empty value as unset.
	if v, ok := env[name]; ok && (v != "" || s.Library != MIOpen) {
		s.BaseFrom = name
		s.envBase(fs, name, v)
		return
	}
	s.BaseFrom = "library location"
	switch s.Library {
	case RocBLAS:
		cands, def := rocblasBases(s.Dir, s.rocblas, s.versioned, s.windows)
		s.Base = probeCandidates(fs, cands, def, &s.BaseSteps)
	case HipBLASLt:
		if s.Release == Release6 {
			s.Base = hipblaslt6Base(fs, s.Dir, &s.BaseSteps)
			break
		}
		s.Base = probe(fs, hipblasltBases(s.Dir), "", &s.BaseSteps)
		s.cwd = s.Base == ""
		if s.cwd {
			s.BaseSteps = append(s.BaseSteps, Step{Path: cwdName,
				Note: "none exists: hipBLASLt reads relative to the working directory (rocblaslt_find_library_relative_path finds nothing)"})
		}
	case MIOpen:
		if s.windows {
			s.miopenFromCwd(fs)
			return
		}
		def := miopenBase(s.Dir)
		s.Base = probe(fs, nil, def, &s.BaseSteps)
	}
	if !s.cwd && fs.isDir(s.Base) {
		return
	}
	if !referencesEnv(fs, fs.entry(s.Path), name) {
		where := show(s.Base)
		if s.cwd {
			where = strings.Join(stepPaths(s.BaseSteps[:len(s.BaseSteps)-1]), ", ")
		}
		s.Why = fmt.Sprintf("no %s in the inputs and %s does not read %s (built without it, or its database ships in a package not given)",
			where, path.Base(s.Path), name)
	}
}

// miopenFromCwd skips a Windows MIOpen.dll without MIOPEN_SYSTEM_DB_PATH:
// MIOpen's GetSystemDbPath returns the configure-time value, empty on
// Windows ("MIOpen.dll will be searching for System DB files in local
// directory": rocm-libraries projects/miopen/src/db_path.cpp.in,
// GetSystemDbPath, #if MIOPEN_BUILD_DEV || defined(_WIN32)), so it reads
// them relative to the working directory, outside the inputs.
func (s *Site) miopenFromCwd(fs *view) {
	s.cwd = true
	s.BaseSteps = []Step{{Path: cwdName, Note: "MIOpen.dll reads its system databases relative to the working directory when " + EnvMIOpen + " is unset"}}
	near := show(miopenBase(s.Dir))
	hint := ""
	if fs.isDir(miopenBase(s.Dir)) {
		hint = fmt.Sprintf("; the inputs ship %s, used only when %s points at it", near, EnvMIOpen)
	}
	s.Why = fmt.Sprintf("%s is a Windows build: it reads its system databases from the working directory unless %s is set (MIOpen's db_path.cpp.in leaves the path empty on Windows)%s; give --env %s=PATH to judge them",
		path.Base(s.Path), EnvMIOpen, hint, EnvMIOpen)
}

// cwdName stands for the process's working directory in steps and
// messages: hipBLASLt's relative paths resolve there, outside the inputs.
const cwdName = "(working directory)"

// envBase sets the base from the variable's value v: a path relative to
// the build root ("/" is the build root). An empty value makes rocBLAS
// build "/<proc>", "/TensileLibrary..." (the file-system root, the build
// root here) and hipBLASLt relative paths (the working directory).
func (s *Site) envBase(fs *view, name, v string) {
	if v == "" && s.Library == HipBLASLt {
		s.cwd = true
		s.BaseSteps = []Step{{Path: cwdName, Note: "from " + name + ", set but empty: hipBLASLt reads relative to the working directory"}}
		return
	}
	s.Base = strings.TrimLeft(v, "/")
	if s.Base == "" {
		s.Base = "."
	}
	note := "from " + name
	if v == "" {
		note += ", set but empty: rocBLAS reads from the file-system root (the build root here)"
	}
	st := Step{Path: show(s.Base), Found: fs.isDir(s.Base), Note: note}
	if !st.Found && fs.isFile(s.Base) {
		st.Note += "; a file, not a folder"
	}
	s.BaseSteps = []Step{st}
}

func stepPaths(steps []Step) []string {
	out := make([]string, len(steps))
	for i, st := range steps {
		out[i] = st.Path
	}
	return out
}

// probe returns the first candidate that exists (the libraries' TestPath),
// else def, and records each test; an empty def records nothing more.
func probe(fs *view, cands []string, def string, steps *[]Step) string {
	for _, c := range cands {
		found := fs.exists(c)
		st := Step{Path: strings.TrimPrefix(c, "/"), Found: found} // as the library builds it: lib/../rocblas/library
		if found {
			st.Note = "used"
		}
		*steps = append(*steps, st)
		if found {
			return c
		}
	}
	if def != "" {
		*steps = append(*steps, Step{Path: show(def), Found: fs.isDir(def), Note: "default"})
	}
	return def
}

// candidate is one base folder a library tests: Path is the folder it
// uses, Test the path it tests when that differs (rocBLAS 5.2-5.6 test
// "<dir>library"), Note what the step says.
type candidate struct {
	Path, Test, Note string
}

// probeCandidates is probe for candidates that test another path than
// they use.
func probeCandidates(fs *view, cands []candidate, def string, steps *[]Step) string {
	for _, c := range cands {
		test := c.Path
		if c.Test != "" {
			test = c.Test
		}
		found := fs.exists(test)
		st := Step{Path: strings.TrimPrefix(test, "/"), Found: found, Note: c.Note}
		if found {
			st.Note = strings.TrimPrefix(st.Note+"; used", "; ")
			if c.Test != "" {
				st.Note += ": " + show(c.Path)
			}
		}
		*steps = append(*steps, st)
		if found {
			return c.Path
		}
	}
	*steps = append(*steps, Step{Path: show(def), Found: fs.isDir(def), Note: "default"})
	return def
}

// maxRodata bounds the bytes of read-only data scanned per library file
// (sections overlapping in the file are read once; each distinct file is
// scanned once, view.rodata).
const maxRodata = 256 << 20

// referencesEnv reports whether the library's read-only data holds the
// environment variable's name: a library built to read that database
// (rocBLAS with Tensile, hipBLASLt, MIOpen) calls getenv with it. Files
// that are not ELF or do not parse give false.
func referencesEnv(fs *view, e *vfs.Entry, name string) bool {
	return fs.rodata(e, name)[0]
}

// rodata is scanRodata of the file e for the needles, once per distinct
// file: a library reached from many folders (symlinks, hard links) is
// read once. A file that does not open gives no match.
func (v *view) rodata(e *vfs.Entry, needles ...string) []bool {
	if e == nil {
		return make([]bool, len(needles))
	}
	k := scanKey{file: e, needles: strings.Join(needles, "\x00")}
	if id, ok := e.Identity(); ok {
		k.file = id
	}
	if found, ok := v.scanned[k]; ok {
		return found
	}
	found := make([]bool, len(needles))
	if r, err := e.Open(); err == nil {
		bs := make([][]byte, len(needles))
		for i, n := range needles {
			bs[i] = []byte(n)
		}
		m := v.t.Budget().Meter("the library " + e.Path)
		found, _ = scanRodata(r, m, bs...)
		m.Flush()
		r.Close()
	}
	if v.scanned == nil {
		v.scanned = map[scanKey][]bool{}
	}
	v.scanned[k] = found
	return found
}

// rodataMatch is matchRodata of the file e (a symlink resolves to its
// target) for the regexps, once per distinct file and set of regexps. A
// file that does not open or parse gives no match.
func (v *view) rodataMatch(e *vfs.Entry, res ...*regexp.Regexp) [][]string {
	if e == nil {
		return make([][]string, len(res))
	}
	if e.IsLink() {
		if r, _, err := v.t.Lookup(e.Path); err == nil {
			e = r
		}
	}
	var keys []string
	for _, re := range res {
		keys = append(keys, re.String())
	}
	k := scanKey{file: e, needles: "re\x00" + strings.Join(keys, "\x00")}
	if id, ok := e.Identity(); ok {
		k.file = id
	}
	if m, ok := v.matched[k]; ok {
		return m
	}
	out := make([][]string, len(res))
	if r, err := e.Open(); err == nil {
		m := v.t.Budget().Meter("the library " + e.Path)
		out, _ = matchRodata(r, m, res...)
		m.Flush()
		r.Close()
	}
	if v.matched == nil {
		v.matched = map[scanKey][][]string{}
	}
	v.matched[k] = out
	return out
}

// scanRodata reports, per needle, whether the library's read-only data
// holds it (rodataSpans), reading at most maxRodata bytes in 1 MiB
// windows; debug/elf panics become errors.
func scanRodata(r io.ReaderAt, m *inflate.Meter, needles ...[]byte) (found []bool, err error) {
	found = make([]bool, len(needles))
	spans, err := rodataSpans(r, m)
	eachWindow(r, spans, longest(needles), func(b []byte) {
		for i, nd := range needles {
			found[i] = found[i] || bytes.Contains(b, nd)
		}
	})
	return found, err
}

// maxMatchLen bounds what one regexp of matchRodata may match: windows
// overlap by that much.
const maxMatchLen = 256

// matchRodata returns, per regexp, the submatches of its first match in
// the library's read-only data (nil when none), within maxRodata bytes.
// The regexps must match at most maxMatchLen bytes.
func matchRodata(r io.ReaderAt, m *inflate.Meter, res ...*regexp.Regexp) ([][]string, error) {
	out := make([][]string, len(res))
	spans, err := rodataSpans(r, m)
	eachWindow(r, spans, maxMatchLen, func(b []byte) {
		for i, re := range res {
			if out[i] != nil {
				continue
			}
			if m := re.FindSubmatch(b); m != nil {
				out[i] = make([]string, len(m))
				for j, x := range m {
					out[i][j] = string(x)
				}
			}
		}
	})
	return out, err
}

func longest(needles [][]byte) int {
	n := 0
	for _, nd := range needles {
		n = max(n, len(nd))
	}
	return n
}

// rodataSpans returns the file extents of the read-only data: an ELF's
// SHT_PROGBITS .rodata* sections (not compressed), else a PE's .rdata
// sections (Windows DLLs: rocblas.dll, hipblaslt.dll, MIOpen.dll), sorted
// and merged where they overlap. debug/elf panics become errors.
func rodataSpans(r io.ReaderAt, m *inflate.Meter) (spans [][2]int64, err error) {
	defer func() {
		if p := recover(); p != nil {
			spans, err = nil, fmt.Errorf("ELF does not parse: %v", p)
		}
	}()
	var head [2]byte
	if _, err := r.ReadAt(head[:], 0); err == nil && string(head[:]) == "MZ" {
		spans, err = peRdata(r)
	} else {
		var f *elf.File
		if f, err = elfsafe.NewFile(r, m); err != nil {
			return nil, err
		}
		for _, sec := range f.Sections {
			if sec.Type != elf.SHT_PROGBITS || !strings.HasPrefix(sec.Name, ".rodata") || elfsafe.Compressed(sec) {
				continue
			}
			off, n := int64(min(sec.Offset, 1<<62)), int64(min(sec.FileSize, 1<<62))
			spans = append(spans, [2]int64{off, off + n})
		}
	}
	slices.SortFunc(spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var merged [][2]int64
	for _, sp := range spans {
		if k := len(merged) - 1; k >= 0 && sp[0] < merged[k][1] {
			merged[k][1] = max(merged[k][1], sp[1])
			continue
		}
		merged = append(merged, sp)
	}
	return merged, err
}

// maxPESections bounds the section headers peRdata reads (the COFF
// header's count is 16 bits: at most 65,535, 2.6 MB).
const maxPESections = 1 << 16

// peRdata returns the file extents of a PE's .rdata sections: the DOS
// header's e_lfanew, the COFF file header (NumberOfSections,
// SizeOfOptionalHeader) and the section table (Microsoft PE Format,
// "Section Table"); only 8-byte names are read (".rdata" fits).
func peRdata(r io.ReaderAt) ([][2]int64, error) {
	le := binary.LittleEndian
	var dos [0x40]byte
	if _, err := r.ReadAt(dos[:], 0); err != nil {
		return nil, fmt.Errorf("PE does not parse: %w", err)
	}
	off := int64(le.Uint32(dos[0x3c:]))
	var fh [24]byte
	if _, err := r.ReadAt(fh[:], off); err != nil || string(fh[:4]) != "PE\x00\x00" {
		return nil, fmt.Errorf("PE does not parse: no PE signature at %d", off)
	}
	nsec, opt := int(le.Uint16(fh[6:])), int64(le.Uint16(fh[20:]))
	table := make([]byte, min(nsec, maxPESections)*40)
	if _, err := r.ReadAt(table, off+24+opt); err != nil {
		return nil, fmt.Errorf("PE does not parse: section table: %w", err)
	}
	var spans [][2]int64
	for i := 0; i+40 <= len(table); i += 40 {
		h := table[i : i+40]
		if name := strings.TrimRight(string(h[:8]), "\x00"); name != ".rdata" && name != ".rodata" {
			continue
		}
		size, ptr := int64(le.Uint32(h[16:])), int64(le.Uint32(h[20:]))
		spans = append(spans, [2]int64{ptr, ptr + size})
	}
	return spans, nil
}

// eachWindow calls fn on the spans' bytes, at most maxRodata in all, in
// 1 MiB windows overlapping by overlap-1 bytes.
func eachWindow(r io.ReaderAt, spans [][2]int64, overlap int, fn func([]byte)) {
	budget := int64(maxRodata)
	for _, sp := range spans {
		if budget <= 0 {
			return
		}
		n := min(sp[1]-sp[0], budget)
		budget -= n
		windowsDo(io.NewSectionReader(r, sp[0], n), n, overlap, fn)
	}
}

// windowsDo calls fn on n bytes of r in windows that overlap by
// overlap-1 bytes.
func windowsDo(r io.ReaderAt, n int64, overlap int, fn func([]byte)) {
	const window = 1 << 20
	buf := make([]byte, window+max(overlap, 1))
	for off := int64(0); off < n; off += window {
		k, _ := r.ReadAt(buf[:min(int64(len(buf)), n-off)], off)
		fn(buf[:k])
	}
}

// scanBase attributes the database files under the site's Base to
// processors (Site.Arches) and notes the Tensile index format and whether
// lazy indexes and hipBLASLt mappings are shipped. It follows symlinks
// as the libraries' lookups do (a per-arch folder or file reached through
// a link counts for its arch) and stops after MaxScanEntries entries
// (Site.ScanLimit).
func scanBase(fs *view, s *Site) {
	s.Arches = map[string]*ArchFiles{}
	if s.cwd || !fs.isDir(s.Base) || s.Library == AOTriton { // AOTriton's folders are families, not processors
		return
	}
	var dat, yml bool
	seen := map[string]bool{} // real files already counted in Bytes
	complete := fs.walkFiles(s.Base, MaxScanEntries, func(logical string, e *vfs.Entry) {
		rel := strings.TrimPrefix(logical, s.Base+"/")
		if s.Base == "." {
			rel = logical
		}
		name := path.Base(rel)
		if strings.HasPrefix(name, "TensileLibrary") {
			dat = dat || hasExt(name, []string{".dat", ".dat" + zlibExt})
			yml = yml || strings.HasSuffix(name, ".yaml")
			s.lazy = s.lazy || strings.HasPrefix(name, "TensileLibrary_lazy_")
			s.nonLazy = s.nonLazy || strings.HasPrefix(name, "TensileLibrary_gfx")
		}
		s.mappings = s.mappings || isMappingName(name)
		p := tensileFileArch(rel)
		if s.Library == MIOpen {
			p = miopenFileArch(name)
		}
		if p != "" {
			s.count(p, logical, e, !seen[e.Path])
			seen[e.Path] = true
		}
	})
	for _, a := range s.Arches {
		a.First = show(a.First) // logical paths share Base: raw order is path order
	}
	s.ScanLimit = !complete
	if s.ScanLimit {
		s.BaseSteps = append(s.BaseSteps, Step{Path: show(s.Base), Found: true,
			Note: fmt.Sprintf("more than %d entries: only the first were attributed to arches (kerneldb.MaxScanEntries)", MaxScanEntries)})
	}
	s.yaml = yml && !dat
}

// MaxScanEntries bounds the files and folders scanBase visits under one
// database folder (a real one holds a few ten thousand).
const MaxScanEntries = 1 << 20

// count adds one file (its tree path p and the regular file e it resolves
// to) to proc's set; its bytes count once per regular file.
func (s *Site) count(proc, p string, e *vfs.Entry, bytes bool) {
	a := s.Arches[proc]
	if a == nil {
		a = &ArchFiles{First: p, Input: e.Input}
		s.Arches[proc] = a
	}
	if p < a.First {
		a.First, a.Input = p, e.Input
	}
	a.Count++
	if bytes {
		a.Bytes += e.Size
	}
}

// ext is the Tensile index extension the site's library reads: ".yaml" for
// TENSILE_YAML builds, else ".dat" (MessagePack).
func (s *Site) ext() string {
	if s.yaml {
		return ".yaml"
	}
	return ".dat"
}
