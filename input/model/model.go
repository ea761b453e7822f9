// Package model is the model of one build: the kpack archives and kpack'd
// host binaries found in a virtual file tree, grouped by kpack group. It
// implements resolver.Source so the loader can be simulated over it.
package model

import (
	"bytes"
	"errors"
	"io"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
	"github.com/rocm-tools/kpack-lint/internal/util/intern"
	"github.com/rocm-tools/kpack-lint/internal/util/par"
)

// Archive is one .kpack file of the build.
type Archive struct {
	Entry *vfs.Entry
	Path  string         // slash path inside the tree
	Info  *kpack.Archive // nil when the archive fails to open
	Err   error          // why it fails to open (*kpack.FormatError or an I/O error)
	// NameGroup and NameTag split the file name "<group>_<tag>.kpack" at
	// its last underscore; both are "" for other names.
	NameGroup, NameTag string
}

// Group returns the TOC's group_name, else the one in the file name.
func (a *Archive) Group() string {
	if a.Info != nil && a.Info.GroupName != "" {
		return a.Info.GroupName
	}
	return a.NameGroup
}

// Binary is one host binary that carries a kpack reference (a
// .rocm_kpack_ref section, HIPK wrappers, or a broken attempt at either).
type Binary struct {
	Entry *vfs.Entry
	Path  string          // slash path inside the tree (never a symlink)
	Info  *hostbin.Binary // nil when the file could not be parsed
	Err   error
	Group string // kpack group named by its search paths ("" if none)
}

// Untransformed reports whether the binary carries embedded device code
// (HIPF wrappers) and no kpack reference: HIP loads it without kpack.
func (b *Binary) Untransformed() bool {
	return b.Info != nil && b.Info.Embedded() && b.Info.Ref == nil
}

// Dir is the directory the runtime resolves relative search paths from.
func (b *Binary) Dir() string { return path.Dir(b.Path) }

// Group is one kpack group: its archives and the binaries that load from it.
type Group struct {
	Name     string
	Archives []*Archive // sorted by path
	Binaries []*Binary  // sorted by path
}

// Build is the loaded model. Slices are sorted by path.
type Build struct {
	Tree     *vfs.Tree
	Archives []*Archive
	Binaries []*Binary
	Groups   []*Group // sorted by name
	// Unreadable lists files that could not be read at all.
	Unreadable []FileError

	byPath map[string]*Archive
	fetch  FetchFunc
	// fetchSet: SetFetch replaced TOCFetch.
	fetchSet bool
	// untransformed indexes the binaries with embedded device code and no
	// kpack reference by their path and its suffixes of two or more
	// elements (see Untransformed).
	untransformed map[string]*Binary
}

// FileError is a file of the tree that could not be read.
type FileError struct {
	Entry *vfs.Entry
	Err   error
}

// FetchFunc decides what fetching key for arch from a returns. The default,
// TOCFetch, reads only the TOC; --deep swaps in one that reads the bytes.
type FetchFunc func(a *Archive, key, arch string) kpack.Code

// Options says how much of each archive Load reads.
type Options struct {
	// FrameChains walks each zstd archive's chain of frame size prefixes,
	// as kpack_open does (explain): an archive whose chain runs past
	// zstd_size then fails to open, and zstd bytes after the last frame
	// are a Problem. Without it Load reads only each archive's header, TOC
	// and zstd frame count (kpack.Options.SkipFrameChain), a few pages of
	// the file, and a broken chain goes unseen until verify.Verify walks it
	// (check --deep; Build.Unopen).
	FrameChains bool
	// Workers is how many files are read at once; 0 means
	// runtime.GOMAXPROCS(0). The build does not depend on it.
	Workers int
	// Bundles, when set, gives for the entry of a host binary about to be
	// read the function to call right after the entry table of each of
	// its distinct embedded offload bundles (hostbin.Hooks.Bundle), or
	// nil for none. It is called with the binary being read, the bundle
	// and the reader the binary is read through (r serves reads from the
	// calling goroutine during the call only). check --deep verifies the
	// bundle's code objects there when the entry is read in place
	// (verify.Early).
	Bundles func(e *vfs.Entry) BundleFunc
}

// BundleFunc is what Options.Bundles gives: the hook called after each
// bundle's entry table.
type BundleFunc func(b *hostbin.Binary, bd hostbin.Bundle, r io.ReaderAt)

// Load reads every archive (header, TOC and zstd frame count only) and
// every host binary of the tree. Files that cannot be read end up in
// Unreadable or in the archive's or binary's Err; Load itself fails only
// on a nil tree.
func Load(t *vfs.Tree) *Build { return LoadOptions(t, Options{}) }

// LoadOptions is Load reading as much of the archives as opt says.
func LoadOptions(t *vfs.Tree, opt Options) *Build {
	b := &Build{Tree: t, byPath: map[string]*Archive{}, fetch: TOCFetch}
	kopt := kpack.Options{SkipFrameChain: !opt.FrameChains}
	var files []*vfs.Entry
	for _, e := range t.Files() {
		if !e.IsLink() { // the runtime sees the link's target, which is listed itself
			files = append(files, e)
		}
	}
	sizes := archiveSizes(files)
	if kopt.SkipFrameChain {
		kopt.Shared = &kpack.Shared{Sizes: func(size int64) bool { return sizes[size] > 1 }} // copies of an archive parse once
	}
	// The archives of a build share their kernel keys through a key table
	// per reader; one archive alone has no one to share them with.
	archives := 0
	for _, n := range sizes {
		archives += n
	}
	intern := archives > 1
	read := make([]file, len(files))
	shared := &sharedReads{m: map[sharedKey]*sharedRead{}}
	budget := t.Budget()
	par.Each(len(files), opt.Workers, 16, func() *reader { return newReader(kopt, intern, shared, budget, opt.Bundles) }, func(r *reader, i int) {
		read[i] = r.readFile(files[i])
	})
	if kopt.Shared != nil {
		kopt.Shared.Release() // every archive is open
	}
	for _, f := range read {
		b.add(f)
	}
	b.group()
	b.indexUntransformed()
	return b
}

// archiveSizes counts the files read as archives (finding.IsArchiveName)
// by size, in bytes: kpack.Shared keeps the TOCs of the sizes two or more
// have.
func archiveSizes(files []*vfs.Entry) map[int64]int {
	count := map[int64]int{}
	for _, e := range files {
		if finding.IsArchiveName(e.Path) {
			count[e.Size]++
		}
	}
	return count
}

// Unopen records that the archive at path p does not open after all, with
// kpack_open's error err (a zstd frame chain that check --deep found to
// run past zstd_size): its TOC is dropped and the groups are rebuilt, as
// if Load had found it so.
func (b *Build) Unopen(p string, err error) {
	if a := b.byPath[p]; a != nil && a.Info != nil {
		b.unopen(a, err)
		b.regroup()
	}
}

func (b *Build) unopen(a *Archive, err error) { a.Info, a.Err = nil, err }

func (b *Build) regroup() {
	b.Groups = nil
	b.group()
}

// indexUntransformed fills b.untransformed; the first binary by path wins
// a suffix two binaries share.
func (b *Build) indexUntransformed() {
	b.untransformed = map[string]*Binary{}
	for _, bin := range b.Binaries {
		if !bin.Untransformed() {
			continue
		}
		for _, suffix := range pathSuffixes(bin.Path) {
			if b.untransformed[suffix] == nil {
				b.untransformed[suffix] = bin
			}
		}
	}
}

// pathSuffixes returns p and its suffixes of at least two elements:
// "opt/rocm/bin/x" -> "opt/rocm/bin/x", "rocm/bin/x", "bin/x".
func pathSuffixes(p string) []string {
	out := []string{p}
	for i := strings.IndexByte(p, '/'); i >= 0; i = strings.IndexByte(p, '/') {
		p = p[i+1:]
		if !strings.Contains(p, "/") {
			break
		}
		out = append(out, p)
	}
	return out
}

// Untransformed returns the binary a TOC kernel name stands for when that
// binary ships with embedded device code and no kpack reference, so HIP
// never reads the archives for it (rocm-libraries#8660); nil otherwise.
// The name matches the binary's path inside the tree, or a suffix of two or
// more path elements of either (the tree root may sit above or below the
// install prefix the name is relative to).
func (b *Build) Untransformed(kernelName string) *Binary {
	if len(b.untransformed) == 0 {
		return nil // most builds: every binary is transformed
	}
	for _, suffix := range pathSuffixes(kernelName) {
		if bin := b.untransformed[suffix]; bin != nil {
			return bin
		}
	}
	return nil
}

// HasUntransformed reports whether some binary ships embedded device code
// and no kpack reference (see Untransformed).
func (b *Build) HasUntransformed() bool { return len(b.untransformed) > 0 }

// SetFetch replaces the fetch simulation (see FetchFunc).
func (b *Build) SetFetch(f FetchFunc) { b.fetch, b.fetchSet = f, true }

// TOCOnly reports whether fetches are judged from the TOC alone
// (TOCFetch: no SetFetch): a caller may then look toc[key] up once per
// archive and judge each arch of it with EntryCode.
func (b *Build) TOCOnly() bool { return !b.fetchSet }

// file is what reading one file of the tree gave: an archive, a host
// binary, an unreadable file, or nothing of interest (all nil).
type file struct {
	archive *Archive
	binary  *Binary
	err     *FileError
}

// reader is one goroutine's state while loading: archive options, a page
// cache for headers and a table of the kernel keys its archives share.
type reader struct {
	kopt   kpack.Options
	pc     pageCache
	keys   intern.Table
	intern bool // share keys through keys (the build has several archives)
	shared *sharedReads
	meter  *inflate.Meter // the tree's budget of decompressed bytes, for this goroutine
	// bundles is Options.Bundles, or nil.
	bundles func(e *vfs.Entry) BundleFunc
}

// newReader is the state of one goroutine of Load.
func newReader(kopt kpack.Options, intern bool, shared *sharedReads, budget *inflate.Budget, bundles func(*vfs.Entry) BundleFunc) *reader {
	r := &reader{kopt: kopt, intern: intern, shared: shared, meter: budget.Meter(""), bundles: bundles}
	r.meter.Prefix("host binary ")
	return r
}

// sharedReads holds what reading a file reachable by several paths gave
// (hard links, tar hard-link members: vfs.Entry.Identity), so that its
// bytes are parsed once and every
// path shares the parsed archive or binary.
type sharedReads struct {
	mu sync.Mutex
	m  map[sharedKey]*sharedRead
}

// sharedKey is a file's identity and whether its name makes it an archive
// (the same bytes read as an archive under one name, as a host binary
// under another).
type sharedKey struct {
	id      vfs.Identity
	archive bool
}

type sharedRead struct {
	once sync.Once
	f    file
}

// get returns the entry for k, made on first use.
func (s *sharedReads) get(k sharedKey) *sharedRead {
	s.mu.Lock()
	defer s.mu.Unlock()
	sr := s.m[k]
	if sr == nil {
		sr = &sharedRead{}
		s.m[k] = sr
	}
	return sr
}

// readFile reads one file; readers of their own may read files at once. A
// file sharing its bytes with another path is read once and shared.
func (r *reader) readFile(e *vfs.Entry) file {
	if id, ok := e.Identity(); ok && r.shared != nil {
		sr := r.shared.get(sharedKey{id: id, archive: finding.IsArchiveName(e.Path)})
		sr.once.Do(func() { sr.f = r.readOne(e) })
		return sr.f.at(e)
	}
	return r.readOne(e)
}

// at is f as read through e: the same parsed archive or binary, under e's
// path.
func (f file) at(e *vfs.Entry) file {
	switch {
	case f.archive != nil:
		a := *f.archive
		a.Entry, a.Path = e, e.Path
		a.NameGroup, a.NameTag = finding.SplitArchiveName(e.Path)
		return file{archive: &a}
	case f.binary != nil:
		b := *f.binary
		b.Entry, b.Path = e, e.Path
		return file{binary: &b}
	case f.err != nil:
		return file{err: &FileError{Entry: e, Err: f.err.Err}}
	}
	return f
}

// readOne reads one file.
func (r *reader) readOne(e *vfs.Entry) file {
	if finding.IsArchiveName(e.Path) {
		kopt := r.kopt
		if r.intern {
			kopt.Keys = &r.keys
		}
		return file{archive: openArchive(e, kopt, &r.pc)}
	}
	r.meter.Name(e.Path)
	bin, err := readBinary(e, &r.pc, r.meter, r.hooks(e))
	r.meter.Flush()
	if err != nil {
		return file{err: &FileError{Entry: e, Err: err}}
	}
	return file{binary: bin}
}

// hooks are the hostbin hooks reading e calls: Options.Bundles' for e,
// if any.
func (r *reader) hooks(e *vfs.Entry) hostbin.Hooks {
	if r.bundles == nil {
		return hostbin.Hooks{}
	}
	f := r.bundles(e)
	if f == nil {
		return hostbin.Hooks{}
	}
	return hostbin.Hooks{Bundle: func(b *hostbin.Binary, bd hostbin.Bundle) { f(b, bd, &r.pc) }}
}

func (b *Build) add(f file) {
	switch {
	case f.archive != nil:
		b.Archives = append(b.Archives, f.archive)
		b.byPath[f.archive.Path] = f.archive
	case f.err != nil:
		b.Unreadable = append(b.Unreadable, *f.err)
	case f.binary != nil:
		b.Binaries = append(b.Binaries, f.binary)
	}
}

func openArchive(e *vfs.Entry, kopt kpack.Options, pc *pageCache) *Archive {
	a := &Archive{Entry: e, Path: e.Path}
	a.NameGroup, a.NameTag = finding.SplitArchiveName(e.Path)
	r, direct, err := e.OpenDirect()
	if !direct {
		return openMember(a, kopt, pc)
	}
	if err != nil {
		a.Err = err
		return a
	}
	defer r.Close()
	// A file that is no archive fails at the magic, its first page read.
	return openThrough(a, r, kopt, pc)
}

// openThrough reads the archive's header and TOC from r through the page
// cache (the header and the zstd frame count share a page).
func openThrough(a *Archive, r vfs.ReaderAt, kopt kpack.Options, pc *pageCache) *Archive {
	pc.reset(r, r.Size())
	defer pc.reset(nil, 0)
	a.Info, a.Err = kpack.OpenOptions(pc, r.Size(), kopt)
	if a.Err != nil {
		a.Info = nil
	}
	return a
}

// openMember opens an archive that is a member of a wheel or tarball.
func openMember(a *Archive, kopt kpack.Options, pc *pageCache) *Archive {
	e := a.Entry
	if head, err := e.Head(kpack.HeaderSize); err == nil && !bytes.HasPrefix(head, []byte(kpack.Magic)) {
		// Not an archive at all: judge it from its first bytes without
		// reading (or, for compressed inputs, copying) the rest.
		_, a.Err = kpack.Open(bytes.NewReader(head), e.Size)
		return a
	}
	r, err := e.Open()
	if err != nil {
		a.Err = err
		return a
	}
	defer r.Close()
	return openThrough(a, r, kopt, pc)
}

// errNotWanted is openRead's answer for a file whose first bytes the
// caller does not want.
var errNotWanted = errors.New("not wanted")

// openRead opens e for reading through pc when want accepts its first
// bytes (up to 8; errNotWanted otherwise). A plain file is opened once
// (vfs.Entry.OpenDirect) and its first page read through pc; a member of a
// compressed input is sniffed with Head and opened only when wanted.
func openRead(e *vfs.Entry, pc *pageCache, want func(head []byte) bool) (vfs.ReaderAt, error) {
	r, direct, err := e.OpenDirect()
	if err != nil {
		return nil, err
	}
	var head []byte
	if direct {
		pc.reset(r, r.Size())
		var buf [20]byte // through e_machine: isDeviceCodeObject
		n, _ := pc.ReadAt(buf[:min(int64(len(buf)), r.Size())], 0)
		head = buf[:n]
	} else if head, err = e.Head(20); err != nil {
		return nil, err
	}
	if !want(head) {
		if direct {
			r.Close()
			pc.reset(nil, 0)
		}
		return nil, errNotWanted
	}
	if !direct {
		if r, err = e.Open(); err != nil {
			return nil, err
		}
		pc.reset(r, r.Size())
	}
	return r, nil
}

// readBinary returns nil, nil for files that are neither kpack'd host
// binaries nor HIP binaries with embedded device code (HIPF wrappers). A file that starts like ELF or PE but cannot be parsed is
// returned with Err set, so the rules can report it instead of hiding it.
// Only the first bytes of other files are read (vfs.Entry.Head), so large
// unrelated members of compressed inputs are never decompressed twice.
func readBinary(e *vfs.Entry, pc *pageCache, m *inflate.Meter, h hostbin.Hooks) (*Binary, error) {
	r, err := openRead(e, pc, func(head []byte) bool {
		_, ok := hostbin.Sniff(head[:min(4, len(head))])
		return ok && len(head) >= 2 && !isDeviceCodeObject(head)
	})
	if errors.Is(err, errNotWanted) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	defer pc.reset(nil, 0)
	info, err := hostbin.ReadHooked(pc, r.Size(), m, h)
	if errors.Is(err, hostbin.ErrNotBinary) {
		return nil, nil
	}
	if err != nil {
		return &Binary{Entry: e, Path: e.Path, Err: err}, nil
	}
	if !info.Kpacked() && !info.Embedded() && len(info.Problems) == 0 {
		return nil, nil
	}
	bin := &Binary{Entry: e, Path: e.Path, Info: info}
	if info.Ref != nil {
		bin.Group = groupFromSearchPaths(info.Ref.SearchPaths)
	}
	return bin, nil
}

// isDeviceCodeObject reports whether head starts an ELF whose e_machine is
// EM_AMDGPU (224): a loose device code object (a Tensile .co or .hsaco),
// not a host binary, even when it is cut short. The kernel databases
// judge those (sim/kerneldb, --deep), as the library loads them.
func isDeviceCodeObject(head []byte) bool {
	return len(head) >= 20 && string(head[:4]) == "\x7fELF" && head[5] == 1 && head[18] == 224 && head[19] == 0
}

// groupFromSearchPaths reads the group out of "<dir>/<group>_@GFXARCH@.kpack".
func groupFromSearchPaths(paths []string) string {
	for _, p := range paths {
		base := path.Base(strings.ReplaceAll(p, `\`, "/"))
		if g, ok := strings.CutSuffix(base, "_"+kpack.GfxArch+".kpack"); ok && g != "" {
			return g
		}
	}
	return ""
}

func (b *Build) group() {
	byName := map[string]*Group{}
	get := func(n string) *Group {
		g := byName[n]
		if g == nil {
			g = &Group{Name: n}
			byName[n] = g
		}
		return g
	}
	for _, a := range b.Archives {
		if n := a.Group(); n != "" {
			get(n).Archives = append(get(n).Archives, a)
		}
	}
	for _, bin := range b.Binaries {
		if bin.Group != "" {
			get(bin.Group).Binaries = append(get(bin.Group).Binaries, bin)
		}
	}
	for _, g := range byName {
		b.Groups = append(b.Groups, g)
	}
	sort.Slice(b.Groups, func(i, j int) bool { return b.Groups[i].Name < b.Groups[j].Name })
}

// GroupByName returns the named group or nil.
func (b *Build) GroupByName(n string) *Group {
	for _, g := range b.Groups {
		if g.Name == n {
			return g
		}
	}
	return nil
}

// ArchiveAt returns the archive whose real path is p, or nil.
func (b *Build) ArchiveAt(p string) *Archive { return b.byPath[p] }

// Open implements resolver.Source: the archive at p after following
// symlinks, when it exists and opens. An archive whose TOC only the fixed
// runtime refuses (kpack.FormatError.LegacyAborts) is returned with
// Opened.Fault set.
func (b *Build) Open(p string) (kpack.Opened, bool) {
	if strings.HasSuffix(p, "/") {
		return kpack.Opened{}, false // a file named with a trailing slash: ENOTDIR
	}
	_, real, err := b.Tree.Lookup(p)
	if err != nil {
		return kpack.Opened{}, false
	}
	a := b.byPath[real]
	switch {
	case a == nil:
		return kpack.Opened{}, false
	case a.Info != nil:
		return kpack.Opened{Path: real, Arches: a.Info.Arches}, true
	}
	var fe *kpack.FormatError
	if errors.As(a.Err, &fe) && fe.LegacyAborts {
		return kpack.Opened{Path: real, Fault: fe.Error()}, true
	}
	return kpack.Opened{}, false
}

// Fetch implements resolver.Source through the build's FetchFunc.
func (b *Build) Fetch(p, key, arch string) kpack.Code {
	return b.FetchFrom(b.byPath[p], key, arch)
}

// FetchFrom is Fetch for an archive already looked up (nil: none).
func (b *Build) FetchFrom(a *Archive, key, arch string) kpack.Code {
	if a == nil || a.Info == nil {
		return kpack.ArchiveNotFound
	}
	return b.fetch(a, key, arch)
}

// TOCFetch predicts kpack_get_kernel from the TOC alone: KERNEL_NOT_FOUND
// when toc[key][arch] is absent or the archive has no blob table for its
// scheme (an unknown scheme is read as "none") or the ordinal is outside
// the blob or frame table (as decompress_noop/decompress_zstd); kpack.Abort
// when the size the runtime allocates (the none blob's size, the zstd
// entry's original_size) is at least kpack.AbortSize; IO_ERROR for a
// "none" blob past end of file.
func TOCFetch(a *Archive, key, arch string) kpack.Code {
	e, ok := a.Info.Lookup(key, arch)
	return EntryCode(a.Info, e, ok)
}

// EntryCode is TOCFetch for an entry already looked up: e and ok are
// info.Lookup's answer for the key and arch.
func EntryCode(info *kpack.Archive, e kpack.Entry, ok bool) kpack.Code {
	if !ok {
		return kpack.KernelNotFound
	}
	if info.Scheme == kpack.SchemeZstd {
		switch {
		case e.Ordinal >= info.FrameCount:
			return kpack.KernelNotFound // decompress_zstd: ordinal outside the frame table
		case e.OriginalSize >= kpack.AbortSize:
			return kpack.Abort
		}
		return kpack.Success
	}
	if len(info.Blobs) == 0 {
		return kpack.KernelNotFound
	}
	if int(e.Ordinal) >= len(info.Blobs) {
		return kpack.KernelNotFound // decompress_noop: ordinal outside the blob table
	}
	bl := info.Blobs[e.Ordinal]
	if bl.Size >= kpack.AbortSize {
		return kpack.Abort
	}
	if bl.Offset > uint64(info.Size) || bl.Size > uint64(info.Size)-bl.Offset {
		return kpack.IOError
	}
	return kpack.Success
}

// Wanted tells vfs which members of a compressed tarball to keep while
// indexing it: archives by name and magic, host binaries by their ELF or PE
// magic.
// Everything else is listed but not kept, so memory stays bounded.
func Wanted(p string, head []byte) bool {
	if finding.IsArchiveName(p) {
		return bytes.HasPrefix(head, []byte(kpack.Magic))
	}
	_, ok := hostbin.Sniff(head)
	return ok
}
