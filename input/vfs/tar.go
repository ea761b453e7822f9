package vfs

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/ulikunitz/xz"

	"github.com/rocm-tools/kpack-lint/input/vfs/xzra"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
)

// headLen is how many leading bytes of a member Options.Want sees.
const headLen = 64

// Where the bytes of a tar member live.
const (
	inArchive = iota // section of the uncompressed tar file
	inMemory         // data []byte
	inSpill          // section of the backend's temporary file
	notKept          // Want said no: re-read the stream on Open
	inXZ             // offset in the uncompressed stream read in place (tarBackend.xz)
)

// tarMember locates one regular member's bytes.
type tarMember struct {
	where int
	off   int64  // data offset in the tar file, the spill file or the stream read in place
	data  []byte // inMemory
	ord   int    // header ordinal in the stream, for notKept
	head  []byte // first bytes (up to headLen), for notKept
}

// tarBackend serves a tar read in one pass. Uncompressed tars are served as
// sections of the file. Compressed tars cannot be read at random, so the
// index pass keeps the members Options.Want asks for: small ones in memory
// (within Options.SmallMember and the Tree's Options.MemoryBudget), the
// rest appended to one temporary file that close removes. A member not
// kept is still indexed; opening it decompresses the stream again up to it.
type tarBackend struct {
	name    string
	kind    string // tar, tar.gz, ...; cpio.gz, ... for an rpm payload
	f       *os.File
	base    int64             // offset of the archive stream in f (a .deb member, an rpm payload); 0 for a tarball
	size    int64             // bytes of the archive stream
	sec     *io.SectionReader // the stream's bytes while indexing
	members []tarMember
	byPath  map[string]*Entry // this input's entries so far, for hard links
	spill   *os.File
	spillAt int64
	t       *Tree
	last    string // name of the last header read, for messages

	digests map[int]digest // content hashes of members not kept (see digestOf)

	nameBytes int // bytes of member names and link targets read so far

	xz       *xzra.Reader      // the xz stream read in place through its block index (inplace.go), or nil
	pos      *io.SectionReader // the uncompressed stream while a tar read in place is indexed
	cpioAt   int64             // data offset of the cpio member read in place being indexed
	streamed string            // why a large xz stream was streamed instead (Input.Streamed)
	// indexErr is why the xz stream's index did not read (a stream cut
	// short, a corrupt footer): a decoder that reaches the tar's end
	// without noticing (github.com/ulikunitz/xz takes a missing index for
	// the end) still makes the stream a Problem in drain.
	indexErr error
}

// MaxArchiveMembers bounds the headers of one tarball, .deb data.tar.* or
// rpm cpio payload, as MaxZipMembers does for a zip: a compressed stream
// holds an empty member in a few bytes, and each costs an entry. Past it
// the input is not read further (a Problem for the whole input: exit 2).
const MaxArchiveMembers = MaxZipMembers

// MaxMemberName bounds the name and the link target of one tar or cpio
// member, in bytes: Linux PATH_MAX (limits.h, 4,096 with its NUL), which
// no extracted file can pass, and cpio newc's own bound. archive/tar reads
// PAX and GNU long names of up to 1 MiB. A longer one ends the input with
// a Problem for the whole input (exit 2).
const MaxMemberName = 4096

// MaxArchiveNameBytes bounds the member names, link targets and other
// PAX records of one archive stream in all, in bytes (a ROCm tarball of
// 100,000 files holds about 10 MiB of names): 262,144 members of 4 KiB
// names would otherwise keep a GiB, and PAX records of 1 MiB per header
// (archive/tar's bound) would be parsed for hours. Past it the input is
// not read further (exit 2).
const MaxArchiveNameBytes = 64 << 20

// paxBytes is the size of a tar header's PAX records other than the path
// and link target (counted as the name and link).
func paxBytes(hdr *tar.Header) int {
	n := 0
	for k, v := range hdr.PAXRecords {
		if k != "path" && k != "linkpath" {
			n += len(k) + len(v)
		}
	}
	return n
}

// admit counts the header ord (counting from 0) of a member named name
// with link target link and extra bytes of other records against
// MaxArchiveMembers, MaxMemberName and MaxArchiveNameBytes; msg says
// which limit it passes ("" when none).
func (b *tarBackend) admit(ord int, name, link string, extra int) (msg string) {
	switch {
	case ord >= MaxArchiveMembers:
		return fmt.Sprintf("bad %s archive: more than %d members (vfs.MaxArchiveMembers); not read past member %d%s",
			b.kind, MaxArchiveMembers, ord, b.afterMember())
	case len(name) > MaxMemberName:
		return fmt.Sprintf("bad %s archive: member %d has a %d-byte name (%s), longer than %d bytes (vfs.MaxMemberName, Linux PATH_MAX); not read further",
			b.kind, ord+1, len(name), shortName(name), MaxMemberName)
	case len(link) > MaxMemberName:
		return fmt.Sprintf("bad %s archive: member %d %q has a %d-byte link target (%s), longer than %d bytes (vfs.MaxMemberName, Linux PATH_MAX); not read further",
			b.kind, ord+1, name, len(link), shortName(link), MaxMemberName)
	}
	b.nameBytes += len(name) + len(link) + extra
	if b.nameBytes > MaxArchiveNameBytes {
		return fmt.Sprintf("bad %s archive: the names and PAX records of members 1 to %d pass %d bytes in all (vfs.MaxArchiveNameBytes); not read from member %d (%s) on",
			b.kind, ord+1, MaxArchiveNameBytes, ord+1, shortName(name))
	}
	return ""
}

// shortName quotes the first 64 bytes of a name too long to show whole.
func shortName(s string) string {
	if len(s) <= 64 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q...", s[:64])
}

func (t *Tree) loadTar(kind, name string, c *collector) (backend, error) {
	f, st, err := fsutil.Open(name)
	if err != nil {
		return nil, err
	}
	b := t.newTarBackend(kind, name, f, 0, st.Size())
	return b, b.read(c)
}

// newTarBackend serves the archive stream of kind held in size bytes of f
// from offset base.
func (t *Tree) newTarBackend(kind, name string, f *os.File, base, size int64) *tarBackend {
	return &tarBackend{name: name, kind: kind, f: f, base: base, size: size, byPath: map[string]*Entry{}, t: t}
}

// read indexes the stream. Trouble with the stream is a Problem; only a
// failing temporary file is an error.
func (b *tarBackend) read(c *collector) error {
	b.sec = io.NewSectionReader(b.f, b.base, b.size)
	if compression(b.kind) == "xz" {
		x, err := b.inPlace()
		if err != nil {
			c.problem("", "bad %s stream: %v", b.kind, err)
			return nil
		}
		if x != nil {
			err = b.readInPlace(x, c)
			b.byPath, b.pos = nil, nil
			return err
		}
	}
	r, done, err := b.decompress(b.sec)
	if err != nil {
		c.problem("", "bad %s stream: %v", b.kind, err)
		return nil
	}
	defer done()
	if b.isCPIO() {
		err = b.indexCPIO(r, c)
	} else {
		err = b.index(r, c)
	}
	b.byPath = nil
	return err
}

// reopen opens the file again and returns its decompressed archive stream
// and a function releasing both.
func (b *tarBackend) reopen() (io.Reader, func(), error) {
	f, _, err := fsutil.Open(b.name)
	if err != nil {
		return nil, nil, err
	}
	r, done, err := b.decompress(io.NewSectionReader(f, b.base, b.size))
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, func() { done(); f.Close() }, nil
}

// walker reads a member stream in order: next moves to the next member,
// Read reads its bytes.
type walker interface {
	io.Reader
	next() error
}

type tarWalker struct{ *tar.Reader }

func (w tarWalker) next() error { _, err := w.Next(); return err }

// walker returns the member reader of a decompressed stream.
func (b *tarBackend) walker(r io.Reader) walker {
	if b.isCPIO() {
		return newCPIOWalker(r)
	}
	return tarWalker{tar.NewReader(r)}
}

// isCPIO reports an rpm payload: a cpio (newc) archive, not a tar.
func (b *tarBackend) isCPIO() bool { return strings.HasPrefix(b.kind, "cpio") }

// compression is the compression suffix of an archive kind: "gz" for
// tar.gz or cpio.gz, "" for a plain tar.
func compression(kind string) string {
	_, comp, _ := strings.Cut(kind, ".")
	return comp
}

// decompress returns the archive stream of f and a function releasing the
// decoder. Plain tars return f itself, so that tar.Reader seeks over data.
// What a decoder yields is counted against the Tree's budget of
// decompressed bytes (Options.Budget): past it, reads fail with an
// *inflate.LimitError.
func (b *tarBackend) decompress(f io.Reader) (io.Reader, func(), error) {
	nop := func() {}
	if compression(b.kind) == "" {
		return f, nop, nil
	}
	br := bufio.NewReaderSize(f, 1<<20)
	var zr io.Reader
	done := nop
	switch compression(b.kind) {
	case "gz":
		gr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nop, err
		}
		zr, done = gr, func() { gr.Close() }
	case "zst":
		r, close, err := zstdReader(br)
		if err != nil {
			return nil, nop, err
		}
		zr, done = r, close
	case "xz":
		xr, err := b.xzStream(br)
		if err != nil {
			return nil, nop, err
		}
		zr, done = xr, func() { xr.Close() }
	default:
		return nil, nop, fmt.Errorf("unknown archive kind %q", b.kind)
	}
	counted := b.t.opt.Budget.Reader(zr, fmt.Sprintf("%s (its %s stream)", b.name, b.kind))
	return counted, func() { counted.Close(); done() }, nil
}

// xzStream decompresses an xz stream front to back with the run's
// decoder: liblzma, an xz process, or github.com/ulikunitz/xz (whose
// dictionaries declaredDicts bounded before).
func (b *tarBackend) xzStream(r io.Reader) (io.ReadCloser, error) {
	maxDict := streamDictLimit(b.t.opt.BlockMemory)
	switch liblzma, xzPath := b.t.opt.xzDecoder(); {
	case liblzma:
		return xzra.NewStreamReader(r, maxDict)
	case xzPath != "":
		return xzra.NewExternalStreamReader(xzPath, r, maxDict)
	}
	xr, err := xz.NewReader(r)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(xr), nil
}

// streamDictLimit is the largest dictionary an xz stream decompressed
// front to back may use: --deep-memory (Options.BlockMemory), and at
// least xzra.MaxDict.
func streamDictLimit(blockMemory int64) int64 {
	if blockMemory <= 0 {
		blockMemory = xzra.DefaultMemoryBudget
	}
	return max(blockMemory, xzra.MaxDict)
}

// index reads every header. A broken stream ends the pass with a Problem;
// entries indexed so far stay. Only a failing temporary file is an error.
func (b *tarBackend) index(r io.Reader, c *collector) error {
	tr := tar.NewReader(r)
	for ord := 0; ; ord++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			b.drain(r, c)
			return nil
		}
		if err != nil {
			c.problem("", "bad %s archive after %d members%s: %v", b.kind, ord, b.afterMember(), err)
			return nil
		}
		if msg := b.admit(ord, hdr.Name, hdr.Linkname, paxBytes(hdr)); msg != "" {
			c.problem("", "%s", msg)
			return nil
		}
		b.last = hdr.Name
		if err := b.member(ord, hdr, tr, c); err != nil {
			return b.memberErr(c, hdr.Name, hdr.Size, err)
		}
	}
}

// afterMember names the last member read, for messages.
func (b *tarBackend) afterMember() string {
	if b.last == "" {
		return ""
	}
	return fmt.Sprintf(" (the last one %q)", b.last)
}

// drain reads a compressed stream to its end after the tar end-of-archive
// marker, so that a corrupt or truncated gzip/xz trailer (CRC, size) is a
// Problem for the whole input instead of passing unnoticed.
func (b *tarBackend) drain(r io.Reader, c *collector) {
	if compression(b.kind) == "" {
		return
	}
	if _, err := io.Copy(io.Discard, io.LimitReader(r, maxTrailer)); err != nil {
		c.problem("", "bad %s stream after the last member: %v", b.kind, err)
	} else if b.indexErr != nil {
		c.problem("", "bad %s stream after the last member: %v", b.kind, b.indexErr)
	}
}

// maxTrailer bounds what drain reads after the tar end marker (tar pads to
// a 10 KiB record; anything longer is not checked further).
const maxTrailer = 1 << 20

// streamError marks a failure reading the archive itself (as opposed to
// writing the spill file).
type streamError struct{ err error }

func (e streamError) Error() string { return e.err.Error() }

// streamReader marks the read errors of the archive stream as
// streamErrors, so that a member cut short while it is copied to the spill
// file is told from a failing temporary file.
type streamReader struct{ r io.Reader }

func (s streamReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = streamError{err}
	}
	return n, err
}

// memberErr is what the walk returns for err, the error of reading member
// name (size bytes declared): a stream that breaks off inside the member
// is a problem of the input, reported, and the walk ends with nil; any
// other error is returned as it is.
func (b *tarBackend) memberErr(c *collector, name string, size int64, err error) error {
	var se streamError
	if errors.As(err, &se) {
		c.problem("", "bad %s archive: the stream breaks off inside member %q (%d bytes declared): %v", b.kind, name, size, se.err)
		return nil
	}
	return err
}

// errSkip refuses one member; indexing goes on.
type errSkip struct{ msg string }

func (e errSkip) Error() string { return e.msg }

func (b *tarBackend) member(ord int, hdr *tar.Header, tr *tar.Reader, c *collector) error {
	p, msg := memberPath(hdr.Name)
	if msg != "" {
		c.problem(hdr.Name, "%s", msg)
		return nil
	}
	if p == "." {
		return nil
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		c.dir(p)
	case tar.TypeSymlink:
		b.symlink(p, hdr, c)
	case tar.TypeLink:
		b.hardlink(p, hdr, c)
	case tar.TypeReg, tar.TypeGNUSparse, '\x00':
		return b.regular(ord, p, hdr, tr, c)
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		c.problem(p, "skipped special file (tar type %q)", string(hdr.Typeflag))
	default:
		// PAX/GNU metadata and other non-file headers: nothing to lint.
	}
	return nil
}

func (b *tarBackend) add(e *Entry, c *collector) {
	c.add(e)
	b.byPath[e.Path] = e
}

func (b *tarBackend) symlink(p string, hdr *tar.Header, c *collector) {
	if hdr.Linkname == "" || len(hdr.Linkname) > maxLinkTarget || strings.ContainsRune(hdr.Linkname, 0) {
		c.problem(p, "symlink with an empty, overlong or NUL-bearing target refused")
		return
	}
	b.add(&Entry{Path: p, Size: int64(len(hdr.Linkname)), Mode: fs.ModeSymlink | 0o777,
		Link: hdr.Linkname, ModTime: hdr.ModTime, be: b}, c)
}

// hardlink makes p a regular file sharing the bytes of an earlier member.
func (b *tarBackend) hardlink(p string, hdr *tar.Header, c *collector) {
	target, msg := memberPath(hdr.Linkname)
	if msg != "" {
		c.problem(p, "hard link target %q: %s", hdr.Linkname, msg)
		return
	}
	old := b.byPath[target]
	if old == nil || old.IsLink() {
		c.problem(p, "hard link to %q, which is not an earlier regular member", hdr.Linkname)
		return
	}
	b.add(&Entry{Path: p, Size: old.Size, Mode: old.Mode, ModTime: hdr.ModTime, be: b, loc: old.loc}, c)
}

func (b *tarBackend) regular(ord int, p string, hdr *tar.Header, tr *tar.Reader, c *collector) error {
	if hdr.Size < 0 {
		c.problem(p, "negative member size refused")
		return nil
	}
	m, err := b.place(ord, p, hdr, tr)
	var skip errSkip
	if errors.As(err, &skip) {
		c.problem(p, "%s", skip.msg)
		return nil
	}
	if err != nil {
		return err
	}
	perm := fs.FileMode(hdr.Mode).Perm()
	if perm == 0 {
		perm = 0o644
	}
	b.members = append(b.members, m)
	b.add(&Entry{Path: p, Size: hdr.Size, Mode: perm, ModTime: hdr.ModTime, be: b, loc: len(b.members) - 1}, c)
	return nil
}

// place decides where a member's bytes will be served from, copying them
// out of a compressed stream if they are wanted.
func (b *tarBackend) place(ord int, p string, hdr *tar.Header, tr *tar.Reader) (tarMember, error) {
	sparse := isSparse(hdr)
	if sparse && hdr.Size > b.t.opt.MaxMemberBytes {
		return tarMember{}, errSkip{fmt.Sprintf("sparse member of %d bytes refused (limit %d)", hdr.Size, b.t.opt.MaxMemberBytes)}
	}
	if b.kind == "tar" && !sparse {
		off, err := b.sec.Seek(0, io.SeekCurrent)
		if err != nil || off+hdr.Size > b.size {
			return tarMember{}, streamError{fmt.Errorf("member data past the end of the file")}
		}
		return tarMember{where: inArchive, off: b.base + off}, nil
	}
	if b.xz != nil && !sparse {
		return b.tarHeaderInPlace(hdr)
	}
	return b.take(ord, p, hdr.Size, tr)
}

// take reads the first bytes of a member of a compressed stream and keeps
// the member if Options.Want asks for it.
func (b *tarBackend) take(ord int, p string, size int64, r io.Reader) (tarMember, error) {
	head := make([]byte, min(headLen, size))
	if _, err := io.ReadFull(r, head); err != nil {
		return tarMember{}, streamError{err}
	}
	if want := b.t.opt.Want; want != nil && compression(b.kind) != "" && !want(p, head) {
		return tarMember{where: notKept, ord: ord, head: head}, nil
	}
	return b.keep(io.MultiReader(bytes.NewReader(head), streamReader{r}), size)
}

// isSparse reports a GNU or PAX sparse member, whose bytes in the file are
// not its content.
func isSparse(hdr *tar.Header) bool {
	if hdr.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// keep copies size bytes of r into memory (small members, within budget) or
// onto the end of the spill file.
func (b *tarBackend) keep(r io.Reader, size int64) (tarMember, error) {
	if size < b.t.opt.SmallMember && b.t.memUsed+size <= b.t.opt.MemoryBudget {
		data := make([]byte, size)
		if _, err := io.ReadFull(r, data); err != nil {
			return tarMember{}, streamError{err}
		}
		b.t.memUsed += size
		return tarMember{where: inMemory, data: data}, nil
	}
	if b.t.spilled.Load()+size > b.t.opt.MaxSpillBytes {
		return tarMember{}, errSkip{fmt.Sprintf("member of %d bytes not read: the temporary copies of compressed-tar members would pass %d bytes (vfs.Options.MaxSpillBytes)", size, b.t.opt.MaxSpillBytes)}
	}
	if b.spill == nil {
		f, err := createTemp("kpack-lint-vfs-*.tar-members")
		if err != nil {
			return tarMember{}, err
		}
		b.spill = f
	}
	b.t.spilled.Add(size)
	m := tarMember{where: inSpill, off: b.spillAt}
	n, err := io.Copy(b.spill, io.LimitReader(r, size))
	b.spillAt += n
	if err == nil && n < size {
		err = streamError{io.ErrUnexpectedEOF}
	}
	return m, err
}

// head serves the first n bytes of a member; for one that was not kept,
// or is read in place, it returns what indexing recorded (at most headLen
// bytes) without re-reading (for a member read in place, re-reading would
// decode its block again from its start once the cache dropped it).
func (b *tarBackend) head(e *Entry, n int) ([]byte, error) {
	if e.loc >= 0 && e.loc < len(b.members) {
		m := b.members[e.loc]
		if m.where == notKept || m.where == inXZ && (n <= len(m.head) || int64(len(m.head)) == e.Size) {
			return m.head[:min(n, len(m.head))], nil
		}
	}
	return openHead(e, n)
}

// ident is the member whose bytes e reads: a hard-link member shares the
// member it links to.
func (b *tarBackend) ident(e *Entry) (Identity, bool) {
	if e.loc < 0 || e.loc >= len(b.members) {
		return Identity{}, false
	}
	return Identity{be: b, a: uint64(e.loc)}, true
}

// servedInPlace reports whether e is served from the xz stream read in place.
func (b *tarBackend) servedInPlace(e *Entry) bool {
	return e.loc >= 0 && e.loc < len(b.members) && b.members[e.loc].where == inXZ
}

func (b *tarBackend) open(e *Entry) (ReaderAt, error) {
	if e.loc < 0 || e.loc >= len(b.members) {
		return nil, fmt.Errorf("vfs: %s: tar member not available", e.Path)
	}
	m := b.members[e.loc]
	switch m.where {
	case inArchive:
		if b.f == nil {
			return nil, fs.ErrClosed
		}
		return sectionReader(b.f, m.off, e.Size), nil
	case inMemory:
		return memReader(m.data), nil
	case inSpill:
		if b.spill == nil {
			return nil, fs.ErrClosed
		}
		return sectionReader(b.spill, m.off, e.Size), nil
	case inXZ:
		if b.xz == nil {
			return nil, fs.ErrClosed
		}
		return &xzMember{x: b.xz, off: m.off, size: e.Size}, nil
	}
	return b.reread(e, m.ord)
}

// reread decompresses the archive again up to header ordinal ord and
// returns that member's bytes (memory or a temporary file).
func (b *tarBackend) reread(e *Entry, ord int) (ReaderAt, error) {
	r, done, err := b.reopen()
	if err != nil {
		return nil, fmt.Errorf("vfs: %s: %w", e.Path, err)
	}
	defer done()
	w := b.walker(r)
	for i := 0; i <= ord; i++ {
		if err := w.next(); err != nil {
			return nil, fmt.Errorf("vfs: %s: re-reading %s: %w", e.Path, b.name, err)
		}
	}
	ra, err := spill(w, e.Size, b.t.opt.SmallMember)
	if err != nil {
		return nil, fmt.Errorf("vfs: %s: %w", e.Path, err)
	}
	return ra, nil
}

func (b *tarBackend) close() error {
	var first error
	if b.xz != nil {
		b.xz.Close()
		b.xz = nil
	}
	if b.f != nil {
		first = b.f.Close()
		b.f = nil
	}
	if b.spill != nil {
		if err := b.spill.Close(); err != nil && first == nil {
			first = err
		}
		if err := os.Remove(b.spill.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
			first = err
		}
		b.spill = nil
	}
	b.members = nil
	return first
}
