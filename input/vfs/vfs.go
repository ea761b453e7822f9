// Package vfs presents the linter's inputs (directories, wheels and zips,
// tarballs with any common compression, Debian and rpm packages, single
// files) as one virtual file tree. Inputs are overlaid in the order given: a later input replaces the
// same relative path of an earlier one, like pip installing several wheels
// into one site-packages. Archives are read in place and never extracted to
// disk; the only files written are temporary files in os.TempDir that
// Tree.Close removes.
//
// Symlinks are kept as nodes (Entry.Link) and resolved on request by
// Tree.Lookup, with a depth cap and a cycle error, so that a caller can tell a
// versioned .so symlink from a copy (SPEC section 2).
package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rocm-tools/kpack-lint/input/vfs/xzra"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// ErrSymlinkLoop is wrapped by lookups that meet more than MaxLinkDepth
// symlinks, which is how a cycle shows.
var ErrSymlinkLoop = errors.New("vfs: too many levels of symbolic links")

// ErrOutsideRoot is wrapped by lookups whose path, or a symlink met on the
// way, climbs above the tree root with "..".
var ErrOutsideRoot = errors.New("vfs: path leaves the tree root")

// ErrIsDir is wrapped by Lookup when the path names a directory: directories
// are implied by entries and have no Entry of their own.
var ErrIsDir = errors.New("vfs: is a directory")

// ErrNotDir is wrapped by lookups that need a directory where a regular file
// sits, e.g. "lib/libfoo.so/x" when lib/libfoo.so is a file.
var ErrNotDir = errors.New("vfs: not a directory")

// MaxLinkDepth is the number of symlinks one lookup may follow before it
// fails with ErrSymlinkLoop (the Linux ELOOP limit).
const MaxLinkDepth = 40

// Default limits used when the matching Options field is zero.
const (
	// DefaultMaxMemberBytes bounds a zip member decompressed into memory.
	DefaultMaxMemberBytes = 32 << 20
	// DefaultSmallMember bounds a kept compressed-tar member held in memory.
	DefaultSmallMember = 1 << 20
	// DefaultMemoryBudget bounds all kept compressed-tar members held in
	// memory for one Tree together; the rest go to a temporary file.
	DefaultMemoryBudget = 64 << 20
	// DefaultMaxSpillBytes bounds the temporary copies of kept
	// compressed-tar members (archives and host binaries) and of large
	// zip members per Tree.
	DefaultMaxSpillBytes = 64 << 30
)

// ReaderAt is an opened entry: random access to its bytes. Size is the
// entry's size in bytes. Close releases the reader (and any temporary file
// made for it); the Entry can be opened again.
type ReaderAt interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// Entry is one node of an input: a regular file or a symlink. Directories
// have no Entry; they are implied by the paths of entries.
type Entry struct {
	Input   int         // index of the input it came from (Tree.Inputs)
	Path    string      // slash-separated, clean, relative to the input root
	Size    int64       // bytes; for a symlink, the length of Link
	Mode    fs.FileMode // permission bits, plus fs.ModeSymlink for links
	Link    string      // symlink target as stored (relative or absolute), "" otherwise
	ModTime time.Time   // modification time as stored, zero if unknown

	be  backend // where the bytes live
	loc int     // backend-specific locator (member index, ...)
}

// Identity names the stored bytes an entry reads: entries with equal
// identities read the same bytes. It is what lets a reader parse a file
// reachable by many paths once.
type Identity struct {
	be         backend
	a, b, c, d uint64
}

// identifier is implemented by backends whose entries can share bytes.
type identifier interface {
	ident(e *Entry) (Identity, bool)
}

// Identity returns the identity of a regular file's bytes: for a folder
// input the device and inode of a file with several hard links, for a
// tarball the member a hard-link member links to (or the member itself),
// for a zip file the offset its data starts at (one per member: a zip
// listing one member under several names is refused). ok is false for a
// symlink and for a file that shares its bytes with no other entry as far
// as the backend can tell (a folder's file with one link).
func (e *Entry) Identity() (Identity, bool) {
	if e.IsLink() || e.be == nil {
		return Identity{}, false
	}
	id, ok := e.be.(identifier)
	if !ok {
		return Identity{}, false
	}
	return id.ident(e)
}

// IsLink reports whether the entry is a symlink.
func (e *Entry) IsLink() bool { return e.Mode&fs.ModeSymlink != 0 }

// Open returns random access to the entry's bytes. A symlink's bytes are its
// target text. Errors come from the backend: an unreadable file, a corrupt
// archive member (CRC mismatch shows on the last read), a failed temp file.
func (e *Entry) Open() (ReaderAt, error) {
	if e.IsLink() {
		return memReader(e.Link), nil
	}
	if e.be == nil {
		return nil, fmt.Errorf("vfs: %s: entry has no backend", e.Path)
	}
	return e.be.open(e)
}

// headReader is implemented by backends that can give a member's first
// bytes without opening (and so decompressing or spilling) all of it.
type headReader interface {
	head(e *Entry, n int) ([]byte, error)
}

// Head returns up to the first n bytes of the entry (n at most 64 for
// compressed-tar members that were not kept, whose first 64 bytes were
// recorded while indexing). It is cheap for every backend: a zip member is
// streamed, not decompressed whole; a compressed-tar member is never
// re-read. Use it to sniff file types.
func (e *Entry) Head(n int) ([]byte, error) {
	if e.IsLink() || e.be == nil {
		return nil, fmt.Errorf("vfs: %s: no bytes to read", e.Path)
	}
	if hr, ok := e.be.(headReader); ok {
		return hr.head(e, n)
	}
	return openHead(e, n)
}

// openHead opens the entry and reads up to its first n bytes.
func openHead(e *Entry, n int) ([]byte, error) {
	r, err := e.be.open(e)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readHead(r, n)
}

// readHead reads up to the first n bytes of r.
func readHead(r ReaderAt, n int) ([]byte, error) {
	buf := make([]byte, min(int64(n), r.Size()))
	k, err := r.ReadAt(buf, 0)
	if k == len(buf) {
		err = nil
	}
	return buf[:k], err
}

// inPlacer is implemented by backends that serve entries from an xz
// stream read in place (tarBackend).
type inPlacer interface {
	servedInPlace(e *Entry) bool
}

// InPlace reports whether the entry's bytes are decoded from an xz stream
// read in place through its block index (a member of a .deb, .rpm or
// .tar.xz cut into blocks, package xzra): each read decodes the blocks it
// touches, and a block the cache (--deep-memory) dropped is decoded again
// from its start when it is read again. A reader that would read such an
// entry twice (the tables first, the whole code objects later) does
// better to read it once.
func (e *Entry) InPlace() bool {
	p, ok := e.be.(inPlacer)
	return ok && !e.IsLink() && p.servedInPlace(e)
}

// directOpener is implemented by backends whose entries are plain files.
type directOpener interface {
	openDirect(e *Entry) (ReaderAt, error)
}

// OpenDirect opens the entry when its bytes are a plain file (an entry of
// a directory or single-file input), so that reading its head and then its
// tables costs one open; ok is false for members of wheels and tarballs,
// which Head serves without decompressing (open those with Open only when
// reading on). A large file (64 KiB and more) opened this way is read
// without read-ahead: callers read headers and tables, and a cold page
// cache should not fetch more from disk than they touch.
func (e *Entry) OpenDirect() (r ReaderAt, ok bool, err error) {
	d, ok := e.be.(directOpener)
	if !ok || e.IsLink() {
		return nil, false, nil
	}
	r, err = d.openDirect(e)
	return r, true, err
}

// String renders "input#N:path" for messages.
func (e *Entry) String() string { return fmt.Sprintf("input#%d:%s", e.Input, e.Path) }

// Replacement records a path supplied by more than one input (or twice by
// one archive): New, from the later input, hides Old. Use SameContent to
// learn whether the bytes differ.
type Replacement struct {
	Path     string
	Old, New *Entry
}

// Problem is an entry refused or unreadable (absolute path, climbing out
// with "..", bad archive, unsupported member...). Problems are never dropped
// silently: callers turn them into findings. Path is "" for a problem with
// the whole input.
type Problem struct {
	Input int
	Path  string
	Msg   string
}

// String renders "input#N:path: msg" (or "input#N: msg" for the whole input).
func (p Problem) String() string {
	if p.Path == "" {
		return fmt.Sprintf("input#%d: %s", p.Input, p.Msg)
	}
	return fmt.Sprintf("input#%d:%s: %s", p.Input, p.Path, p.Msg)
}

// Input describes one input as given on the command line.
type Input struct {
	Name    string // as given
	Kind    string // dir, zip, tar, tar.gz, tar.zst, tar.xz, deb, rpm or file
	Entries int    // entries indexed (files and symlinks)
	// Streamed says why a large xz stream (a tar.xz, a .deb's
	// data.tar.xz, an rpm's payload) could not be read in place through
	// its block index and was decompressed front to back instead: one
	// block, as single-threaded xz writes, or blocks larger than half of
	// Options.BlockMemory; "" when it was read in place, is small
	// (xzra.LargeOneBlock) or is not xz.
	Streamed string
}

// Options tunes Open. The zero value is ready to use.
type Options struct {
	// Want is called while indexing a compressed tar with each regular
	// member's path and its first up to 64 bytes; members for which it
	// returns false are indexed but their bytes are not kept, so opening
	// them later costs a second decompression pass. nil keeps everything.
	Want func(path string, head []byte) bool
	// MaxMemberBytes bounds a deflated zip member decompressed into memory
	// on Open; larger ones are decompressed to a temporary file.
	// 0 means DefaultMaxMemberBytes.
	MaxMemberBytes int64
	// SmallMember bounds a kept compressed-tar member held in memory.
	// 0 means DefaultSmallMember.
	SmallMember int64
	// MemoryBudget bounds all compressed-tar members held in memory.
	// 0 means DefaultMemoryBudget.
	MemoryBudget int64
	// MaxSpillBytes bounds the bytes of kept compressed-tar members copied
	// to temporary files; members past it are refused with a Problem.
	// 0 means DefaultMaxSpillBytes.
	MaxSpillBytes int64
	// Progress receives one line per input ("reading wheel x.whl (12
	// entries)"); nil is silent.
	Progress io.Writer
	// Budget is the run's budget of decompressed bytes: what every
	// decoder of the Tree yields (tarball, .deb and rpm streams, zip
	// members), on Open and on every later read, is counted against it,
	// and past it reads fail with an *inflate.LimitError (a Problem for
	// the whole input while it is indexed). Tree.Budget gives it to the
	// readers of the entries' contents (host binaries, --deep). nil means
	// a budget of inflate.DefaultMaxBytes for this Tree.
	Budget *inflate.Budget
	// BlockMemory bounds the decoded blocks an xz stream read in place
	// through its block index keeps (and the decoders' dictionaries), per
	// stream, in bytes; a stream with a block larger than half of it is
	// streamed instead. 0 means xzra.DefaultMemoryBudget (256 MiB).
	BlockMemory int64
	// XZ is the path of XZ Utils' xz program (xzra.FindXZ) that decodes
	// the blocks of xz streams read in place, one process per block of
	// at least 256 KiB compressed (xzra.Options.XZ); "" decodes them with
	// the built-in decoder.
	XZ string
	// Liblzma decodes those blocks with liblzma.so.5 loaded into the
	// process (xzra.HaveLiblzma), every block, instead of XZ or the
	// built-in decoder.
	Liblzma bool
	// XZAuto, instead of XZ and Liblzma, has the first xz stream read
	// pick the decoder (xzra.AutoDecoder): inputs without one load no
	// library and run no program for it.
	XZAuto bool
}

// xzDecoder is the run's xz decoder: liblzma, the path of an xz program,
// or neither (the built-in decoder).
func (o *Options) xzDecoder() (liblzma bool, xz string) {
	if o.XZAuto {
		return xzra.AutoDecoder()
	}
	return o.Liblzma, o.XZ
}

func (o Options) withDefaults() Options {
	if o.MaxMemberBytes <= 0 {
		o.MaxMemberBytes = DefaultMaxMemberBytes
	}
	if o.SmallMember <= 0 {
		o.SmallMember = DefaultSmallMember
	}
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = DefaultMemoryBudget
	}
	if o.MaxSpillBytes <= 0 {
		o.MaxSpillBytes = DefaultMaxSpillBytes
	}
	if o.Budget == nil {
		o.Budget = inflate.New(0)
	}
	if o.BlockMemory <= 0 {
		o.BlockMemory = xzra.DefaultMemoryBudget
	}
	return o
}

// backend serves the bytes of the entries of one input.
type backend interface {
	open(e *Entry) (ReaderAt, error)
	close() error
}

// Tree is the overlay of all inputs. Its exported slices are read-only
// after Open.
type Tree struct {
	Inputs   []Input       // in the order given
	Replaced []Replacement // in the order the overlay met them
	Problems []Problem     // in input order

	opt      Options
	backends []backend
	files    map[string]*Entry   // winning entry per path
	dirs     map[string]bool     // every directory, "." included
	children map[string][]string // sorted child names per directory
	sorted   []*Entry
	memUsed  int64        // bytes of compressed-tar members held in memory
	spilled  atomic.Int64 // bytes of compressed-tar and zip members copied to temporary files
}

// Open opens every input, in order, and overlays them. A missing or
// unreadable input (or one that is neither a directory nor a regular file)
// is an error, and nothing stays open; trouble inside an input (bad
// archive, refused member) becomes a Problem.
func Open(inputs []string, opt Options) (*Tree, error) {
	t := &Tree{
		opt:   opt.withDefaults(),
		files: map[string]*Entry{},
		dirs:  map[string]bool{".": true},
	}
	for i, name := range inputs {
		if err := t.addInput(i, name); err != nil {
			t.Close()
			return nil, err
		}
	}
	t.finish()
	return t, nil
}

// collector gathers what one input yields.
type collector struct {
	input    int
	entries  []*Entry
	dirs     []string
	problems []Problem
}

func (c *collector) add(e *Entry) {
	e.Input = c.input
	c.entries = append(c.entries, e)
}

func (c *collector) dir(p string) { c.dirs = append(c.dirs, p) }

func (c *collector) problem(p, format string, args ...any) {
	c.problems = append(c.problems, Problem{Input: c.input, Path: p, Msg: fmt.Sprintf(format, args...)})
}

func (t *Tree) addInput(i int, name string) error {
	f, err := inputFormat(name)
	if err != nil {
		return err
	}
	c := &collector{input: i}
	be, err := f.load(t, name, c)
	if err != nil {
		return fmt.Errorf("input %s: %w", name, err)
	}
	if be != nil {
		t.backends = append(t.backends, be)
	}
	in := Input{Name: name, Kind: f.Kind, Entries: len(c.entries)}
	if tb, ok := be.(*tarBackend); ok {
		in.Streamed = tb.streamed
	}
	t.Inputs = append(t.Inputs, in)
	t.progress(f.Word, name, len(c.entries))
	t.Problems = append(t.Problems, c.problems...)
	for _, d := range c.dirs {
		t.dirs[d] = true
	}
	for _, e := range c.entries {
		t.merge(e)
	}
	return nil
}

// Format is one kind of input: its kind (Input.Kind), the file-name
// endings that choose it (matched without case, the longest that matches
// first; none for a directory, which stat tells, and for any other
// file), the word progress lines name it by, and its loader. formats is
// the one table Open and the command line's help read (Formats): a new
// kind of input is one row (and its loader).
type Format struct {
	Kind     string
	Suffixes []string
	Word     string
	// BlockCache: an input of this kind may hold an xz stream read in
	// place, whose decoded blocks are cached (up to --deep-memory).
	BlockCache bool
	load       func(t *Tree, name string, c *collector) (backend, error)
}

// formats are the kinds of input, in the order help lists them: a
// directory, the archives by name, any other file.
var formats = []Format{
	dirFormat,
	{Kind: "zip", Suffixes: []string{".whl"}, Word: "wheel", load: (*Tree).loadZip},
	{Kind: "zip", Suffixes: []string{".zip"}, Word: "zip", load: (*Tree).loadZip},
	{Kind: "tar", Suffixes: []string{".tar"}, Word: "tar", load: tarLoader("tar")},
	{Kind: "tar.gz", Suffixes: []string{".tar.gz", ".tgz"}, Word: "tar.gz", load: tarLoader("tar.gz")},
	{Kind: "tar.zst", Suffixes: []string{".tar.zst", ".tzst"}, Word: "tar.zst", load: tarLoader("tar.zst")},
	{Kind: "tar.xz", Suffixes: []string{".tar.xz", ".txz"}, Word: "tar.xz", BlockCache: true, load: tarLoader("tar.xz")},
	{Kind: "deb", Suffixes: []string{".deb"}, Word: "Debian package", BlockCache: true, load: (*Tree).loadDeb},
	{Kind: "rpm", Suffixes: []string{".rpm"}, Word: "rpm package", BlockCache: true, load: (*Tree).loadRPM},
	fileFormat,
}

// dirFormat is a directory input, read in place; fileFormat any other
// regular file, one entry.
var (
	dirFormat  = Format{Kind: "dir", Word: "directory", load: func(_ *Tree, name string, c *collector) (backend, error) { return loadDir(name, c) }}
	fileFormat = Format{Kind: "file", Word: "file", load: func(_ *Tree, name string, c *collector) (backend, error) { return loadFile(name, c) }}
)

// Formats returns the kinds of input (the table Open reads), in order;
// the slice is a copy.
func Formats() []Format { return append([]Format(nil), formats...) }

func (t *Tree) loadZip(name string, c *collector) (backend, error) {
	return loadZip(name, c, t.opt, &t.spilled)
}

// tarLoader loads a tarball of the given kind (tar, tar.gz, tar.zst, tar.xz).
func tarLoader(kind string) func(t *Tree, name string, c *collector) (backend, error) {
	return func(t *Tree, name string, c *collector) (backend, error) { return t.loadTar(kind, name, c) }
}

func (t *Tree) progress(word, name string, n int) {
	if t.opt.Progress == nil {
		return
	}
	fmt.Fprintf(t.opt.Progress, "reading %s %s (%d entries)\n", word, escape.String(name), n)
}

// inputFormat classifies an input by stat and name. Archives are
// recognised by their file-name endings (formatByName); any other
// regular file is "file".
func inputFormat(name string) (Format, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return Format{}, fmt.Errorf("input %s: %w", name, err)
	}
	if fi.IsDir() {
		return dirFormat, nil
	}
	if !fi.Mode().IsRegular() {
		return Format{}, fmt.Errorf("input %s: not a directory or regular file", name)
	}
	return formatByName(name), nil
}

// formatByName is the format whose ending name has (any case, the
// longest that matches), else "file".
func formatByName(name string) Format {
	n := strings.ToLower(name)
	best, longest := fileFormat, 0
	for _, f := range formats {
		for _, suf := range f.Suffixes {
			if len(suf) > longest && strings.HasSuffix(n, suf) {
				best, longest = f, len(suf)
			}
		}
	}
	return best
}

// merge lays e over the tree, recording a Replacement if it hides another.
func (t *Tree) merge(e *Entry) {
	if old := t.files[e.Path]; old != nil {
		t.Replaced = append(t.Replaced, Replacement{Path: e.Path, Old: old, New: e})
	}
	t.files[e.Path] = e
}

// finish derives directories, resolves file/directory clashes and builds
// the sorted views.
//
// Walking up from a path stops at the first ancestor already known, so a
// tree N folders deep costs O(N) path operations, not O(N^2).
func (t *Tree) finish() {
	for p := range t.files {
		t.addParents(p)
	}
	for d := range t.dirs {
		if d != "." {
			t.addParents(d)
		}
	}
	t.dropShadowed()
	t.buildChildren()
}

// addParents records the directories above p up to the first one already
// known (whose own parents are then known or recorded when it is met).
func (t *Tree) addParents(p string) {
	for d := path.Dir(p); d != "." && !t.dirs[d]; d = path.Dir(d) {
		t.dirs[d] = true
	}
}

// dropShadowed removes entries whose path is also a directory (a file in
// one input, a directory in another): the directory wins, with a Problem.
func (t *Tree) dropShadowed() {
	for p, e := range t.files {
		if t.dirs[p] {
			t.Problems = append(t.Problems, Problem{Input: e.Input, Path: p,
				Msg: "path is a file or symlink here but a directory in the merged tree; the file is hidden"})
			delete(t.files, p)
		}
	}
	sort.SliceStable(t.Problems, func(i, j int) bool { return t.Problems[i].Input < t.Problems[j].Input })
}

func (t *Tree) buildChildren() {
	t.children = map[string][]string{}
	t.sorted = make([]*Entry, 0, len(t.files))
	for p, e := range t.files {
		t.sorted = append(t.sorted, e)
		d := path.Dir(p)
		t.children[d] = append(t.children[d], path.Base(p))
	}
	for d := range t.dirs {
		if d != "." {
			t.children[path.Dir(d)] = append(t.children[path.Dir(d)], path.Base(d))
		}
	}
	for _, names := range t.children {
		sort.Strings(names)
	}
	slices.SortFunc(t.sorted, func(a, b *Entry) int { return strings.Compare(a.Path, b.Path) })
}

// Close releases every input and removes the temporary files. It returns
// the first error met; calling it twice is harmless.
func (t *Tree) Close() error {
	var first error
	for _, b := range t.backends {
		if err := b.close(); err != nil && first == nil {
			first = err
		}
	}
	t.backends = nil
	return first
}

// Budget is the Tree's budget of decompressed bytes (Options.Budget),
// for the readers of its entries' contents to draw on; nil for a nil
// Tree (no budget).
func (t *Tree) Budget() *inflate.Budget {
	if t == nil {
		return nil
	}
	return t.opt.Budget
}

// Files returns every winning entry (regular files and symlinks), sorted by
// Path. The slice is shared: do not modify it.
func (t *Tree) Files() []*Entry { return t.sorted }

// Entry returns the winning entry stored at exactly p (no symlink
// following; a symlink is returned as itself), or nil.
func (t *Tree) Entry(p string) *Entry { return t.files[cleanRel(p)] }

// IsDir reports whether p (symlinks not followed) is a directory of the
// merged tree.
func (t *Tree) IsDir(p string) bool { return t.dirs[cleanRel(p)] }

// cleanRel cleans p and strips leading slashes; "" becomes ".".
func cleanRel(p string) string {
	p = path.Clean("/" + p)
	if p == "/" {
		return "."
	}
	return p[1:]
}

// SameContent reports whether two entries have the same bytes: sizes first,
// then a streaming comparison (or SHA-256 digests when either entry is a
// compressed-tar member whose bytes were not kept: those of one stream are
// hashed in a single pass, see sameByDigest). Two symlinks compare their targets; a
// symlink never equals a regular file.
func SameContent(a, b *Entry) (bool, error) {
	if a.IsLink() || b.IsLink() {
		return a.IsLink() && b.IsLink() && a.Link == b.Link, nil
	}
	if a.Size != b.Size {
		return false, nil
	}
	if sameByDigest(a, b) {
		da, err := digestOf(a)
		if err != nil {
			return false, err
		}
		db, err := digestOf(b)
		return err == nil && da == db, err
	}
	ra, err := a.Open()
	if err != nil {
		return false, err
	}
	defer ra.Close()
	rb, err := b.Open()
	if err != nil {
		return false, err
	}
	defer rb.Close()
	return sameBytes(ra, rb, a.Size)
}

func sameBytes(ra, rb io.ReaderAt, size int64) (bool, error) {
	const chunk = 64 << 10
	ba, bb := make([]byte, chunk), make([]byte, chunk)
	for off := int64(0); off < size; off += chunk {
		n := int(min(chunk, size-off))
		if err := readFull(ra, ba[:n], off); err != nil {
			return false, err
		}
		if err := readFull(rb, bb[:n], off); err != nil {
			return false, err
		}
		if string(ba[:n]) != string(bb[:n]) {
			return false, nil
		}
	}
	return true, nil
}

// readFull fills p from r at off; a short read is an error.
func readFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
