package kerneldb

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/vfs"
)

// findSites lists every shipped library: one site per library and folder
// it is loaded from. A regular file is loaded from its own folder (a copy
// in a wheel looks next to itself); a symlink from its target's folder, as
// the runtime's loaded-object path resolves (SPEC 2). rocBLAS and hipBLASLt
// take that folder from dl_iterate_phdr/dladdr, which for the usual
// versioned links in one folder is the same folder.
func findSites(t *vfs.Tree) []*Site {
	byKey := map[string]*Site{}
	var order []string
	for _, e := range t.Files() {
		lib, ok := libraryOf(path.Base(e.Path))
		if !ok {
			continue
		}
		dir, ok := loadFolder(t, e)
		if !ok {
			continue // a dangling link or one leaving the tree loads nothing
		}
		key := string(lib) + "\x00" + dir
		s := byKey[key]
		if s == nil {
			s = &Site{Library: lib, Dir: dir, Path: e.Path, Input: e.Input}
			byKey[key] = s
			order = append(order, key)
		}
		s.Names = append(s.Names, e.Path)
		if !e.IsLink() && isLink(t, s.Path) {
			s.Path, s.Input = e.Path, e.Input // prefer the regular file
		}
	}
	out := make([]*Site, 0, len(order))
	for _, k := range order {
		out = append(out, byKey[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Library != out[j].Library {
			return libraryRank(out[i].Library) < libraryRank(out[j].Library)
		}
		return out[i].Path < out[j].Path
	})
	return out
}

func libraryRank(l Library) int {
	for i, x := range Libraries {
		if x == l {
			return i
		}
	}
	return len(Libraries)
}

func isLink(t *vfs.Tree, p string) bool {
	e := t.Entry(p)
	return e != nil && e.IsLink()
}

// loadFolder is the folder a library entry is loaded from.
func loadFolder(t *vfs.Tree, e *vfs.Entry) (string, bool) {
	if !e.IsLink() {
		return path.Dir(e.Path), true
	}
	_, real, err := t.Lookup(e.Path)
	if err != nil {
		return "", false
	}
	return path.Dir(real), true
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
// (rocblasBase, hipblasltBase, miopenBase) or from its environment
// variable, and sets Why when the library is not judged: its database is
// absent from the inputs and nothing says it needs one.
func (s *Site) resolveBase(fs *view, env map[string]string) {
	name := envVar(s.Library)
	if v := env[name]; v != "" {
		s.Base, s.BaseFrom = strings.TrimPrefix(v, "/"), name
		s.BaseSteps = []Step{{Path: show(s.Base), Found: fs.isDir(s.Base), Note: "from " + name}}
		return
	}
	s.BaseFrom = "library location"
	var cands []string
	var def string
	switch s.Library {
	case RocBLAS:
		cands, def = rocblasBases(s.Dir)
	case HipBLASLt:
		cands, def = hipblasltBases(s.Dir)
	default:
		def = miopenBase(s.Dir)
	}
	s.Base = probe(fs, cands, def, &s.BaseSteps)
	if fs.isDir(s.Base) {
		return
	}
	if !referencesEnv(fs.entry(s.Path), name) {
		s.Why = fmt.Sprintf("no %s in the inputs and %s does not read %s (built without it, or its database ships in a package not given)",
			show(s.Base), path.Base(s.Path), name)
	}
}

// probe returns the first candidate that exists (the libraries' TestPath),
// else def, and records each test.
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
	*steps = append(*steps, Step{Path: show(def), Found: fs.isDir(def), Note: "default"})
	return def
}

// maxRodata bounds the bytes of read-only data scanned per library.
const maxRodata = 256 << 20

// referencesEnv reports whether the library's read-only data holds the
// environment variable's name: a library built to read that database
// (rocBLAS with Tensile, hipBLASLt, MIOpen) calls getenv with it. Files
// that are not ELF or do not parse give false.
func referencesEnv(e *vfs.Entry, name string) bool {
	if e == nil {
		return false
	}
	r, err := e.Open()
	if err != nil {
		return false
	}
	defer r.Close()
	found, _ := scanRodata(r, []byte(name))
	return found
}

// scanRodata searches the ELF's .rodata* sections for needle, reading at
// most maxRodata bytes in 1 MiB windows; debug/elf panics become errors.
func scanRodata(r io.ReaderAt, needle []byte) (found bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			found, err = false, fmt.Errorf("ELF does not parse: %v", p)
		}
	}()
	f, err := elf.NewFile(r)
	if err != nil {
		return false, err
	}
	budget := int64(maxRodata)
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_PROGBITS || !strings.HasPrefix(sec.Name, ".rodata") || budget <= 0 {
			continue
		}
		n := min(int64(sec.Size), budget)
		budget -= n
		if windowHas(io.NewSectionReader(r, int64(sec.Offset), n), n, needle) {
			return true, nil
		}
	}
	return false, nil
}

// windowHas scans n bytes of r in windows that overlap by len(needle)-1.
func windowHas(r io.ReaderAt, n int64, needle []byte) bool {
	const window = 1 << 20
	buf := make([]byte, window+len(needle))
	for off := int64(0); off < n; off += window {
		k, _ := r.ReadAt(buf[:min(int64(len(buf)), n-off)], off)
		if bytes.Contains(buf[:k], needle) {
			return true
		}
	}
	return false
}

// scanBase attributes the database files under the site's Base to
// processors (Site.Arches) and notes the Tensile index format and whether
// lazy indexes are shipped.
func scanBase(fs *view, s *Site) {
	s.Arches = map[string]*ArchFiles{}
	real, ok := fs.real(s.Base)
	if !ok {
		return
	}
	var dat, yml bool
	for _, e := range fs.filesUnder(s.Base) {
		rel := strings.TrimPrefix(e.Path, real+"/")
		if real == "." {
			rel = e.Path
		}
		name := path.Base(rel)
		if strings.HasPrefix(name, "TensileLibrary") {
			dat = dat || strings.HasSuffix(name, ".dat")
			yml = yml || strings.HasSuffix(name, ".yaml")
			s.lazy = s.lazy || strings.HasPrefix(name, "TensileLibrary_lazy_")
			s.nonLazy = s.nonLazy || strings.HasPrefix(name, "TensileLibrary_gfx")
		}
		p := tensileFileArch(rel)
		if s.Library == MIOpen {
			p = miopenFileArch(name)
		}
		if p != "" {
			s.count(p, e)
		}
	}
	s.yaml = yml && !dat
}

func (s *Site) count(proc string, e *vfs.Entry) {
	a := s.Arches[proc]
	if a == nil {
		a = &ArchFiles{First: e.Path, Input: e.Input}
		s.Arches[proc] = a
	}
	a.Count++
	a.Bytes += e.Size
}

// ext is the Tensile index extension the site's library reads: ".yaml" for
// TENSILE_YAML builds, else ".dat" (MessagePack).
func (s *Site) ext() string {
	if s.yaml {
		return ".yaml"
	}
	return ".dat"
}
