// Package kerneldbtest builds kernel-database trees for tests: rocBLAS and
// hipBLASLt Tensile library folders (lazy and non-lazy, flat and per-arch
// layouts, xnack variants, MessagePack or YAML indexes) and MIOpen db
// folders, with the file names real builds use (SPEC 7, TheRock's
// database_handlers.py) and small but valid contents: indexes naming their
// Placeholder sub-libraries, AMDGPU code-object headers, and library ELF
// files whose read-only data names the environment variable they read.
package kerneldbtest

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Tree is a file tree to write: regular files and symlinks by slash path.
type Tree struct {
	Files map[string][]byte
	Links map[string]string // path -> link target as stored
}

// New returns an empty tree.
func New() *Tree { return &Tree{Files: map[string][]byte{}, Links: map[string]string{}} }

// Add sets a file's bytes.
func (t *Tree) Add(p string, data []byte) { t.Files[p] = data }

// Link adds a symlink.
func (t *Tree) Link(p, target string) { t.Links[p] = target }

// Remove deletes every file and link whose path is p or lies below p.
func (t *Tree) Remove(p string) {
	for k := range t.Files {
		if k == p || strings.HasPrefix(k, p+"/") {
			delete(t.Files, k)
		}
	}
	for k := range t.Links {
		if k == p || strings.HasPrefix(k, p+"/") {
			delete(t.Links, k)
		}
	}
}

// Paths returns every file and link path, sorted.
func (t *Tree) Paths() []string {
	var out []string
	for p := range t.Files {
		out = append(out, p)
	}
	for p := range t.Links {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Write creates the tree under dir (which it clears first).
func (t *Tree) Write(tb testing.TB, dir string) {
	tb.Helper()
	if err := os.RemoveAll(dir); err != nil {
		tb.Fatal(err)
	}
	for p, data := range t.Files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for p, target := range t.Links {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			tb.Fatal(err)
		}
	}
}

// Library returns a minimal ELF64 shared object whose .rodata holds the
// environment variable name it reads (ROCBLAS_TENSILE_LIBPATH, ...), as
// a library built with that database calls getenv with it; hipBLASLt's
// also holds the pieces of its per-arch mapping file name
// ("TensileLiteLibrary_lazy_" + arch + "_Mapping.dat").
func Library(env string) []byte {
	data := "rocblas_initialize\x00" + env + "\x00/opt/rocm/lib\x00"
	if env == EnvHipBLASLt {
		data += "TensileLiteLibrary_lazy_\x00_Mapping.dat\x00"
	}
	return hostbintest.ELFWith(hostbintest.ELFSection{
		Name: ".rodata", Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 16,
		Data: []byte(data),
	})
}

// LibraryWithSoname is Library with a DT_SONAME: a .dynamic section whose
// DT_SONAME entry names soname in .dynstr.
func LibraryWithSoname(env, soname string) []byte {
	dyn := binary.LittleEndian.AppendUint64(nil, uint64(elf.DT_SONAME))
	dyn = binary.LittleEndian.AppendUint64(dyn, 1) // offset of soname in .dynstr
	dyn = append(dyn, make([]byte, 16)...)         // DT_NULL
	return hostbintest.ELFWith(
		hostbintest.ELFSection{Name: ".rodata", Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 16,
			Data: []byte("rocblas_initialize\x00" + env + "\x00")},
		hostbintest.ELFSection{Name: ".dynstr", Type: elf.SHT_STRTAB, Flags: elf.SHF_ALLOC, Align: 1, Data: []byte("\x00" + soname + "\x00")},
		hostbintest.ELFSection{Name: ".dynamic", Type: elf.SHT_DYNAMIC, Flags: elf.SHF_ALLOC, Align: 8, Data: dyn, Link: 2},
	)
}

// AddLibrary adds a versioned library with its SONAME and development
// links in dir: name.so.<major>.<minor> (a file), name.so.<major> and
// name.so (links).
func (t *Tree) AddLibrary(dir, name, major, minor, env string) {
	real := name + ".so." + major + "." + minor
	t.Add(dir+"/"+real, Library(env))
	t.Link(dir+"/"+name+".so."+major, real)
	t.Link(dir+"/"+name+".so", name+".so."+major)
}

// Tensile describes one Tensile library folder to add.
type Tensile struct {
	Dir     string   // the library folder, e.g. "lib/rocblas/library"
	Arches  []string // target IDs built, e.g. "gfx942", "gfx90a:xnack-", "gfx90a:xnack+"
	PerArch bool     // per-arch subfolders <proc>/ or <proc>-xnack±/ (rocm-libraries#5976)
	Lazy    bool     // lazy loading: TensileLibrary_lazy_<proc> + Placeholder sub-libraries
	Kernels int      // sub-libraries per arch (lazy) or assembly code objects (non-lazy)
	// Fallback adds the arch-less *_fallback sub-library (lazy builds).
	Fallback bool
	YAML     bool // TENSILE_YAML build: .yaml instead of .dat
	// Lite: hipBLASLt's TensileLite layout: lazy builds add the per-arch
	// TensileLiteLibrary_lazy_<proc>_Mapping.dat next to the index.
	Lite bool
}

// MappingFile is hipBLASLt's per-arch lazy mapping file for proc.
func MappingFile(proc string) string { return "TensileLiteLibrary_lazy_" + proc + "_Mapping.dat" }

// Types are the data-type tags of the generated sub-libraries, in order.
var Types = []string{"HH", "SS", "DD", "BB", "HH_HPA", "BB_HPA", "CC", "ZZ", "I8II", "4xi8I"}

// SubLibrary is the file prefix of sub-library i for a processor.
func SubLibrary(i int, proc string) string {
	return fmt.Sprintf("TensileLibrary_Type_%s_Contraction_l_Ailk_Bljk_Cijk_Dijk_%s", Types[i%len(Types)], proc) + suffix(i)
}

func suffix(i int) string {
	if i < len(Types) {
		return ""
	}
	return fmt.Sprintf("_%d", i/len(Types))
}

// FallbackSubLibrary is the arch-less fallback sub-library's prefix
// (rocm-libraries#6076: same name, different contents per arch).
const FallbackSubLibrary = "TensileLibrary_Type_SS_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback"

// ArchFolder returns the folder an arch's files go to.
func (s Tensile) ArchFolder(arch string) string {
	if !s.PerArch {
		return s.Dir
	}
	return s.Dir + "/" + ArchDirName(arch)
}

// ArchDirName is a per-arch folder's name: gfx942, gfx90a-xnack+.
func ArchDirName(arch string) string {
	id, err := targetid.Parse(arch)
	if err != nil {
		panic(err)
	}
	return id.Processor + variant(id)
}

// variant is the xnack infix Tensile puts in file names: -xnack+, -xnack-
// or "".
func variant(id targetid.ID) string {
	on, set := id.Setting(targetid.Xnack)
	switch {
	case !set:
		return ""
	case on:
		return "-xnack+"
	}
	return "-xnack-"
}

// AddTensile adds a Tensile library folder.
func (t *Tree) AddTensile(s Tensile) {
	for _, arch := range s.Arches {
		id, err := targetid.Parse(arch)
		if err != nil {
			panic(err)
		}
		if s.Lazy {
			t.addLazy(s, arch, id)
		} else {
			t.addNonLazy(s, arch, id)
		}
	}
}

func (s Tensile) ext() string {
	if s.YAML {
		return ".yaml"
	}
	return ".dat"
}

func (t *Tree) addLazy(s Tensile, arch string, id targetid.ID) {
	dir, proc, v := s.ArchFolder(arch), id.Processor, variant(id)
	var subs []string
	for i := 0; i < s.Kernels; i++ {
		pre := SubLibrary(i, proc)
		subs = append(subs, pre)
		t.Add(dir+"/"+pre+s.ext(), SubLibraryBytes(pre, s.YAML))
		t.Add(dir+"/"+pre+v+".co", codeobjtest.CodeObject(arch, pre))
	}
	if s.Fallback {
		subs = append(subs, FallbackSubLibrary)
		t.Add(dir+"/"+FallbackSubLibrary+s.ext(), SubLibraryBytes(FallbackSubLibrary, s.YAML))
		t.Add(dir+"/"+FallbackSubLibrary+"_"+proc+v+".hsaco", codeobjtest.CodeObject(arch, FallbackSubLibrary))
	}
	t.Add(dir+"/TensileLibrary_lazy_"+proc+s.ext(), Index(proc, subs, s.YAML))
	t.Add(dir+"/Kernels.so-000-"+proc+v+".hsaco", codeobjtest.CodeObject(arch, "Kernels.so"))
	if s.Lite {
		t.Add(dir+"/"+MappingFile(proc), Mapping(subs))
	}
}

// Mapping is a TensileLite library mapping: solution index -> file
// prefix of the sub-library holding it (MessagePack map, int keys).
func Mapping(subs []string) []byte {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	if err := enc.EncodeMapLen(len(subs)); err != nil {
		panic(err)
	}
	for i, sub := range subs {
		if err := enc.EncodeInt(int64(i * 100)); err != nil {
			panic(err)
		}
		if err := enc.EncodeString(sub); err != nil {
			panic(err)
		}
	}
	return buf.Bytes()
}

func (t *Tree) addNonLazy(s Tensile, arch string, id targetid.ID) {
	dir, proc, v := s.ArchFolder(arch), id.Processor, variant(id)
	t.Add(dir+"/TensileLibrary_"+proc+s.ext(), Index(proc, nil, s.YAML))
	for i := 0; i < max(s.Kernels, 1); i++ {
		t.Add(fmt.Sprintf("%s/TensileLibrary_%s%s_%d.co", dir, proc, v, i), codeobjtest.CodeObject(arch, fmt.Sprint(i)))
	}
	t.Add(dir+"/Kernels.so-000-"+proc+v+".hsaco", codeobjtest.CodeObject(arch, "Kernels.so"))
}

// Index returns a master library for proc naming the given Placeholder
// sub-libraries, shaped like Tensile's: solutions, then a Hardware library
// whose row predicate is the processor and whose library is a Problem map
// of Placeholder entries.
func Index(proc string, subs []string, yaml bool) []byte {
	var rows []any
	for _, s := range subs {
		rows = append(rows, obj("key", s, "library", obj("type", "Placeholder", "value", s)))
	}
	doc := obj(
		"solutions", []any{},
		"library", obj("type", "Hardware", "rows", []any{
			obj("predicate", obj("type", "AMDGPU", "value", obj("type", "Processor", "value", proc)),
				"library", obj("type", "ProblemMap", "property", obj("type", "OperationIdentifier"), "map", rows)),
		}),
	)
	return encode(doc, yaml)
}

// SubLibraryBytes is a sub-library file: one solution, no further
// placeholders.
func SubLibraryBytes(prefix string, yaml bool) []byte {
	return encode(obj("solutions", []any{obj("name", prefix+"_MT64x64x16", "index", 0)},
		"library", obj("type", "Single", "index", 0)), yaml)
}

// ordered is a map that encodes its keys in the order given, so generated
// files are byte-for-byte reproducible.
type ordered []any

func obj(kv ...any) ordered { return ordered(kv) }

func encode(v any, yaml bool) []byte {
	if yaml {
		var b strings.Builder
		writeYAML(&b, v, 0)
		return []byte(b.String())
	}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	if err := encodeMsgpack(enc, v); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func encodeMsgpack(enc *msgpack.Encoder, v any) error {
	switch x := v.(type) {
	case ordered:
		if err := enc.EncodeMapLen(len(x) / 2); err != nil {
			return err
		}
		for _, e := range x {
			if err := encodeMsgpack(enc, e); err != nil {
				return err
			}
		}
		return nil
	case []any:
		if err := enc.EncodeArrayLen(len(x)); err != nil {
			return err
		}
		for _, e := range x {
			if err := encodeMsgpack(enc, e); err != nil {
				return err
			}
		}
		return nil
	}
	return enc.Encode(v)
}

// writeYAML writes v in block style (flow style for empty lists).
func writeYAML(b *strings.Builder, v any, indent int) {
	pad := strings.Repeat("  ", indent)
	switch x := v.(type) {
	case ordered:
		for i := 0; i+1 < len(x); i += 2 {
			fmt.Fprintf(b, "%s%v:", pad, x[i])
			writeYAMLValue(b, x[i+1], indent)
		}
	case []any:
		for _, e := range x {
			fmt.Fprintf(b, "%s-\n", pad)
			writeYAML(b, e, indent+1)
		}
	}
}

func writeYAMLValue(b *strings.Builder, v any, indent int) {
	switch x := v.(type) {
	case ordered:
		b.WriteString("\n")
		writeYAML(b, x, indent+1)
	case []any:
		if len(x) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteString("\n")
		writeYAML(b, x, indent+1)
	default:
		fmt.Fprintf(b, " %v\n", x)
	}
}

// AddMIOpen adds MIOpen database files to dir (share/miopen/db): for each
// base name (gfx90a6e, gfx942130, gfx1151_20, gfx90a) the given
// extensions (".kdb", ".HIP.fdb.txt", ".db.txt").
func (t *Tree) AddMIOpen(dir string, bases []string, exts ...string) {
	for _, b := range bases {
		for _, e := range exts {
			t.Add(dir+"/"+b+e, []byte(b+e+" contents\n"))
		}
	}
}

// LibraryWithStrings is Library with more NUL-terminated strings in its
// .rodata (a versioned folder, a version string) and, when soname is not
// "", a DT_SONAME.
func LibraryWithStrings(env, soname string, strs ...string) []byte {
	data := "rocblas_initialize\x00" + env + "\x00"
	for _, s := range strs {
		data += s + "\x00"
	}
	secs := []hostbintest.ELFSection{{Name: ".rodata", Type: elf.SHT_PROGBITS, Flags: elf.SHF_ALLOC, Align: 16, Data: []byte(data)}}
	if soname != "" {
		dyn := binary.LittleEndian.AppendUint64(nil, uint64(elf.DT_SONAME))
		dyn = binary.LittleEndian.AppendUint64(dyn, 1)
		dyn = append(dyn, make([]byte, 16)...)
		secs = append(secs,
			hostbintest.ELFSection{Name: ".dynstr", Type: elf.SHT_STRTAB, Flags: elf.SHF_ALLOC, Align: 1, Data: []byte("\x00" + soname + "\x00")},
			hostbintest.ELFSection{Name: ".dynamic", Type: elf.SHT_DYNAMIC, Flags: elf.SHF_ALLOC, Align: 8, Data: dyn, Link: 2})
	}
	return hostbintest.ELFWith(secs...)
}

// DLL returns a minimal PE DLL whose .rdata holds the strings (the
// environment variable a Windows rocblas.dll or hipblaslt.dll reads).
func DLL(strs ...string) []byte {
	data := ""
	for _, s := range strs {
		data += s + "\x00"
	}
	return hostbintest.PEWith(hostbintest.PESection{Name: ".rdata", Data: []byte(data)})
}
