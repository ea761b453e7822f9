package vfs

import (
	"archive/zip"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// maxLinkTarget bounds a symlink target read from an archive member.
const maxLinkTarget = 4096

// MaxZipMembers bounds the central-directory records of one zip or wheel
// (a ROCm wheel lists a few ten thousand files). archive/zip keeps a
// record of about 200 bytes per member from 46 bytes of directory, so the
// count is checked before it reads the directory; past it the input is
// not read (a Problem for the whole input: exit 2).
const MaxZipMembers = 1 << 18

// zipBackend serves a zip or wheel read in place. Stored members are
// sections of the file; deflated members are decompressed on Open into
// memory (up to Options.MaxMemberBytes) or into one temporary file per
// distinct byte range (a zip whose members' ranges overlap is refused
// before: overlapping), within Options.MaxSpillBytes in all; the
// backend's close removes them. What they decompress is counted against
// the Tree's budget of decompressed bytes.
type zipBackend struct {
	f        *os.File
	files    []*zip.File
	maxMem   int64
	maxSpill int64
	wheel    bool // a .whl: symlink members install as regular files

	mu      sync.Mutex
	spills  map[zipRange]*zipSpill
	spilled *atomic.Int64 // the Tree's bytes of spill files (tar and zip)

	name   string          // the input as given, for messages
	budget *inflate.Budget // the Tree's budget of decompressed bytes
}

// zipRange is the stored byte range a member decompresses from and what it
// declares; members with equal ranges read the same bytes.
type zipRange struct {
	off, csize, usize uint64
	method            uint16
	crc               uint32
}

// zipSpill is the temporary copy of one zipRange, made once.
type zipSpill struct {
	once sync.Once
	r    *fileReader
	err  error
}

// loadZip indexes a zip. An unreadable file is an error; a file that is
// not a valid zip is a Problem for the whole input.
func loadZip(name string, c *collector, opt Options, spilled *atomic.Int64) (backend, error) {
	f, st, err := fsutil.Open(name)
	if err != nil {
		return nil, err
	}
	b := &zipBackend{f: f, maxMem: opt.MaxMemberBytes, maxSpill: opt.MaxSpillBytes, spilled: spilled,
		wheel: strings.HasSuffix(strings.ToLower(name), ".whl"), name: name, budget: opt.Budget}
	if n, over := countZipRecords(f, st.Size(), MaxZipMembers); over {
		c.problem("", "zip archive lists more than %d members (vfs.MaxZipMembers), %d or more; not read", MaxZipMembers, n)
		return b, nil
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		c.problem("", "bad zip archive: %v", err)
		return b, nil
	}
	if msg := overlapping(zr.File); msg != "" {
		c.problem("", "%s", msg)
		return b, nil
	}
	b.files = zr.File
	for i, zf := range zr.File {
		b.index(i, zf, c)
	}
	return b, nil
}

// overlapping refuses a zip bomb of overlapping members: central-directory
// records whose stored bytes (the compressed data after each local
// header) overlap, or that point at one local header under several names,
// so that one compressed body is inflated once per name (an overlapping
// "better zip bomb": 1 MB serving 1 GiB under 3,000 names). A zip writer
// stores each member once, one after another. It returns the message
// naming the first two members that overlap by data offset, "" when none
// do. A member whose local header does not read is left to Open.
func overlapping(files []*zip.File) string {
	type span struct {
		off, end int64
		i        int
	}
	spans := make([]span, 0, len(files))
	for i, zf := range files {
		off, err := zf.DataOffset()
		if err != nil {
			continue
		}
		spans = append(spans, span{off, off + int64(min(zf.CompressedSize64, 1<<62)), i})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Or(cmp.Compare(a.off, b.off), cmp.Compare(a.i, b.i)) })
	far := -1 // the span reaching furthest so far
	for k, s := range spans {
		if far >= 0 {
			f := spans[far]
			a, b := files[f.i].Name, files[s.i].Name
			switch {
			case s.off == f.off:
				return fmt.Sprintf("zip bomb refused: members %s and %s are one stored member under two names (both point at the %d stored bytes at offset %d); a zip stores each member once: not read",
					shortName(a), shortName(b), f.end-f.off, f.off)
			case s.off < f.end:
				return fmt.Sprintf("zip bomb refused: the stored bytes of members %s [%d, %d) and %s [%d, %d) overlap (one compressed body read under several names); not read",
					shortName(a), f.off, f.end, shortName(b), s.off, s.end)
			}
		}
		if far < 0 || s.end > spans[far].end {
			far = k
		}
	}
	return ""
}

func (b *zipBackend) index(i int, zf *zip.File, c *collector) {
	p, msg := memberPath(zf.Name)
	if msg != "" {
		c.problem(zf.Name, "%s", msg)
		return
	}
	mode := zf.Mode()
	switch {
	case p == ".":
	case mode.IsDir() || strings.HasSuffix(zf.Name, "/"):
		c.dir(p)
	case mode&fs.ModeSymlink != 0 && b.wheel:
		// pip writes a wheel's symlink member as a regular file holding
		// the link text (wheels cannot hold symlinks), so that is what
		// the runtime finds there.
		c.problem(p, "symlink member in a wheel: pip installs it as a regular %d-byte file holding the link text, not as a link", zf.UncompressedSize64)
		b.indexFile(i, p, zf, c)
	case mode&fs.ModeSymlink != 0:
		b.indexLink(p, zf, c)
	case mode.IsRegular():
		b.indexFile(i, p, zf, c)
	default:
		// Devices, pipes, sockets: nothing to lint; skipped quietly.
	}
}

func (b *zipBackend) indexFile(i int, p string, zf *zip.File, c *collector) {
	if zf.UncompressedSize64 > math.MaxInt64 {
		c.problem(p, "member size %d too large", zf.UncompressedSize64)
		return
	}
	perm := zf.Mode().Perm()
	if perm == 0 {
		perm = 0o644
	}
	c.add(&Entry{Path: p, Size: int64(zf.UncompressedSize64), Mode: perm, ModTime: zf.Modified, be: b, loc: i})
}

func (b *zipBackend) indexLink(p string, zf *zip.File, c *collector) {
	target, err := b.readLinkMember(zf)
	if err != nil {
		c.problem(p, "cannot read symlink target: %v", err)
		return
	}
	c.add(&Entry{Path: p, Size: int64(len(target)), Mode: fs.ModeSymlink | 0o777, Link: target, ModTime: zf.Modified, be: b})
}

// member opens the decompressed stream of zf, counted against the Tree's
// budget of decompressed bytes (its Close charges what is left).
func (b *zipBackend) member(zf *zip.File) (io.ReadCloser, error) {
	rc, err := zf.Open()
	if err != nil {
		return nil, err
	}
	return b.budget.Reader(rc, fmt.Sprintf("%s member %q", b.name, zf.Name)), nil
}

func (b *zipBackend) readLinkMember(zf *zip.File) (string, error) {
	if zf.UncompressedSize64 > maxLinkTarget {
		return "", fmt.Errorf("target longer than %d bytes", maxLinkTarget)
	}
	rc, err := b.member(zf)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	buf, err := io.ReadAll(io.LimitReader(rc, maxLinkTarget+1))
	if err != nil {
		return "", err
	}
	if len(buf) == 0 || len(buf) > maxLinkTarget {
		return "", fmt.Errorf("bad target length %d", len(buf))
	}
	return string(buf), nil
}

func (b *zipBackend) open(e *Entry) (ReaderAt, error) {
	if e.loc < 0 || e.loc >= len(b.files) || b.f == nil {
		return nil, fmt.Errorf("vfs: %s: zip member not available", e.Path)
	}
	zf := b.files[e.loc]
	if zf.Flags&0x1 != 0 {
		return nil, fmt.Errorf("vfs: %s: encrypted zip member", e.Path)
	}
	if zf.Method == zip.Store && zf.CompressedSize64 == zf.UncompressedSize64 {
		off, err := zf.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("vfs: %s: %w", e.Path, err)
		}
		return sectionReader(b.f, off, e.Size), nil
	}
	if e.Size > b.maxMem {
		return b.openSpilled(e, zf)
	}
	rc, err := b.member(zf)
	if err != nil {
		return nil, fmt.Errorf("vfs: %s: %w", e.Path, err)
	}
	defer rc.Close()
	ra, err := spill(rc, e.Size, b.maxMem)
	if err != nil {
		return nil, fmt.Errorf("vfs: %s: %w", e.Path, err)
	}
	return ra, nil
}

// openSpilled serves a member larger than maxMem from the temporary copy
// of its byte range, made on the first open of any member sharing it,
// within maxSpill bytes of copies in all.
func (b *zipBackend) openSpilled(e *Entry, zf *zip.File) (ReaderAt, error) {
	key, err := rangeOf(zf)
	if err != nil {
		return nil, fmt.Errorf("vfs: %s: %w", e.Path, err)
	}
	b.mu.Lock()
	if b.spills == nil {
		b.spills = map[zipRange]*zipSpill{}
	}
	sp := b.spills[key]
	if sp == nil {
		sp = &zipSpill{}
		b.spills[key] = sp
		if b.spilled.Add(e.Size) > b.maxSpill {
			b.spilled.Add(-e.Size)
			sp.once.Do(func() {
				sp.err = fmt.Errorf("member of %d bytes not read: the temporary copies of archive members would pass %d bytes (vfs.Options.MaxSpillBytes)", e.Size, b.maxSpill)
			})
		}
	}
	b.mu.Unlock()
	sp.once.Do(func() {
		rc, err := b.member(zf)
		if err != nil {
			sp.err = err
			return
		}
		defer rc.Close()
		ra, err := spill(rc, e.Size, 0)
		if err != nil {
			sp.err = err
			return
		}
		sp.r = ra.(*fileReader)
	})
	if sp.err != nil {
		return nil, fmt.Errorf("vfs: %s: %w", e.Path, sp.err)
	}
	return sectionReader(sp.r, 0, e.Size), nil
}

// rangeOf is the byte range a member reads (its data offset reads the
// local header).
func rangeOf(zf *zip.File) (zipRange, error) {
	off, err := zf.DataOffset()
	if err != nil {
		return zipRange{}, err
	}
	return zipRange{off: uint64(off), csize: zf.CompressedSize64, usize: zf.UncompressedSize64, method: zf.Method, crc: zf.CRC32}, nil
}

// ident is a member's byte range (distinct for every member: members
// sharing stored bytes are refused as a zip bomb).
func (b *zipBackend) ident(e *Entry) (Identity, bool) {
	if e.loc < 0 || e.loc >= len(b.files) || b.f == nil {
		return Identity{}, false
	}
	r, err := rangeOf(b.files[e.loc])
	if err != nil {
		return Identity{}, false
	}
	return Identity{be: b, a: r.off, b: r.usize, c: r.csize, d: uint64(r.method)<<32 | uint64(r.crc)}, true
}

// head streams the first n bytes of a member without decompressing (or
// spilling) the rest.
func (b *zipBackend) head(e *Entry, n int) ([]byte, error) {
	if e.loc < 0 || e.loc >= len(b.files) || b.f == nil {
		return nil, fmt.Errorf("vfs: %s: zip member not available", e.Path)
	}
	zf := b.files[e.loc]
	if zf.Flags&0x1 != 0 {
		return nil, fmt.Errorf("vfs: %s: encrypted zip member", e.Path)
	}
	rc, err := b.member(zf)
	if err != nil {
		return nil, fmt.Errorf("vfs: %s: %w", e.Path, err)
	}
	defer rc.Close()
	buf := make([]byte, min(int64(n), e.Size))
	k, err := io.ReadFull(rc, buf)
	if err != nil && k < len(buf) {
		return buf[:k], fmt.Errorf("vfs: %s: %w", e.Path, err)
	}
	return buf, nil
}

func (b *zipBackend) close() error {
	if b.f == nil {
		return nil
	}
	err := b.f.Close()
	b.f = nil
	for _, sp := range b.spills {
		if sp.r != nil {
			sp.r.Close()
		}
	}
	b.spills = nil
	return err
}

// memberPath validates and cleans an archive member name. It returns "."
// for the root, or a non-empty refusal message for names that are absolute,
// climb out with "..", or use backslashes or NUL.
func memberPath(name string) (string, string) {
	switch {
	case name == "":
		return "", "empty member name"
	case strings.ContainsRune(name, 0):
		return "", "member name contains NUL"
	case strings.Contains(name, `\`):
		return "", "member name contains a backslash (refused: ambiguous path separator)"
	case strings.HasPrefix(name, "/"), len(name) >= 2 && name[1] == ':':
		return "", "absolute member path refused"
	}
	p := path.Clean(name)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", "member path climbs out of the archive root with \"..\"; refused"
	}
	return p, ""
}
