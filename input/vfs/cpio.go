package vfs

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/cavaliergopher/cpio"
)

// An rpm payload is a cpio archive in the SVR4 "newc" format (magic
// 070701, or 070702 with checksums), read with github.com/cavaliergopher/cpio,
// which bounds names and link targets to 4,096 bytes and sizes to 4 GiB.
// rpm 4.12 and later write a "stripped" variant (magic 07070X) for packages
// with files of 4 GiB and more, whose names and sizes live in the rpm header
// only: that one is refused with a Problem.
const cpioStrippedMagic = "07070X"

type cpioWalker struct{ *cpio.Reader }

func newCPIOWalker(r io.Reader) walker { return cpioWalker{cpio.NewReader(r)} }

func (w cpioWalker) next() error { _, err := w.Next(); return err }

// linkSet is the members of one cpio hard-link set (same inode, more than
// one link): newc stores the data once, on the set's last member, and the
// earlier ones with size 0 (rpm lib/fsm.c, GNU cpio).
type linkSet struct {
	data    *Entry   // the member holding the bytes, once met
	pending []*Entry // members met before it
}

// indexCPIO reads every cpio header, like index does for a tar: a broken
// stream ends the pass with a Problem; only a failing temporary file is an
// error.
func (b *tarBackend) indexCPIO(r io.Reader, c *collector) error {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(cpioStrippedMagic)); string(head) == cpioStrippedMagic {
		c.problem("", "the payload is a stripped cpio archive (magic %s, rpm 4.12 and later, for files of 4 GiB and more): not read", cpioStrippedMagic)
		return nil
	}
	cr := cpio.NewReader(br)
	links := map[int64]*linkSet{}
	for ord := 0; ; ord++ {
		hdr, err := cr.Next()
		if err == io.EOF {
			b.finishLinks(links)
			b.drain(br, c)
			return nil
		}
		if err != nil {
			c.problem("", "bad %s archive after %d members%s: %v", b.kind, ord, b.afterMember(), err)
			b.finishLinks(links)
			return nil
		}
		if msg := b.admit(ord, hdr.Name, hdr.Linkname, 0); msg != "" {
			c.problem("", "%s", msg)
			b.finishLinks(links)
			return nil
		}
		b.last = hdr.Name
		if err := b.cpioMember(ord, hdr, cr, links, c); err != nil {
			b.finishLinks(links)
			return b.memberErr(c, hdr.Name, hdr.Size, err)
		}
	}
}

// rpmMemberPath is the installed path of a cpio member: rpm strips a
// leading "./", then "/", and installs the rest under the root (lib/rpmfi.c
// rpmfnFindFN: "turn absolute paths into relative"). ".." climbing out,
// NUL and backslashes are refused as in any archive.
func rpmMemberPath(name string) (string, string) {
	n := strings.TrimPrefix(name, "./")
	n = strings.TrimPrefix(n, "/")
	if n == "" || n == "." {
		return ".", ""
	}
	return memberPath(n)
}

func (b *tarBackend) cpioMember(ord int, hdr *cpio.Header, r io.Reader, links map[int64]*linkSet, c *collector) error {
	p, msg := rpmMemberPath(hdr.Name)
	if msg != "" {
		c.problem(hdr.Name, "%s", msg)
		return nil
	}
	if p == "." {
		return nil
	}
	switch hdr.Mode & cpio.ModeType {
	case cpio.TypeDir:
		c.dir(p)
	case cpio.TypeSymlink:
		if strings.ContainsRune(hdr.Linkname, 0) {
			c.problem(p, "symlink with a NUL-bearing target refused")
			return nil
		}
		b.add(&Entry{Path: p, Size: int64(len(hdr.Linkname)), Mode: fs.ModeSymlink | 0o777,
			Link: hdr.Linkname, ModTime: hdr.ModTime, be: b}, c)
	case cpio.TypeReg:
		return b.cpioRegular(ord, p, hdr, r, links, c)
	default:
		c.problem(p, "skipped special file (cpio mode %#o)", uint32(hdr.Mode))
	}
	return nil
}

// cpioRegular indexes a regular member. A member of a hard-link set
// without data shares the bytes of the set's data member, met before or
// after it.
func (b *tarBackend) cpioRegular(ord int, p string, hdr *cpio.Header, r io.Reader, links map[int64]*linkSet, c *collector) error {
	perm := fs.FileMode(hdr.Mode).Perm()
	if perm == 0 {
		perm = 0o644
	}
	e := &Entry{Path: p, Size: hdr.Size, Mode: perm, ModTime: hdr.ModTime, be: b, loc: -1}
	var set *linkSet
	if hdr.Links > 1 {
		if set = links[hdr.Inode]; set == nil {
			set = &linkSet{}
			links[hdr.Inode] = set
		}
		if hdr.Size == 0 {
			if set.data != nil {
				e.Size, e.loc = set.data.Size, set.data.loc
			} else {
				set.pending = append(set.pending, e)
			}
			b.add(e, c)
			return nil
		}
	}
	var m tarMember
	var err error
	if b.xz != nil {
		m, err = b.memberInPlace(b.cpioAt, hdr.Size)
	} else {
		m, err = b.take(ord, p, hdr.Size, r)
	}
	var skip errSkip
	if errors.As(err, &skip) {
		c.problem(p, "%s", skip.msg)
		return nil
	}
	if err != nil {
		return err
	}
	b.members = append(b.members, m)
	e.loc = len(b.members) - 1
	b.add(e, c)
	if set != nil && set.data == nil {
		set.data = e
		for _, pe := range set.pending {
			pe.Size, pe.loc = e.Size, e.loc
		}
		set.pending = nil
	}
	return nil
}

// finishLinks gives the members of hard-link sets whose data member never
// came (all of size 0) an empty content, so that each opens.
func (b *tarBackend) finishLinks(links map[int64]*linkSet) {
	empty := -1
	for _, set := range links {
		if len(set.pending) == 0 {
			continue
		}
		if empty < 0 {
			b.members = append(b.members, tarMember{where: inMemory, data: []byte{}})
			empty = len(b.members) - 1
		}
		for _, e := range set.pending {
			e.Size, e.loc = 0, empty
		}
		set.pending = nil
	}
}

// indexCPIOInPlace reads every cpio header of a payload read in place
// (b.xz), hopping from one header to the next over the member data, as
// indexCPIO does for a stream.
func (b *tarBackend) indexCPIOInPlace(c *collector) error {
	size := b.xz.Size()
	var magic [len(cpioStrippedMagic)]byte
	if n, _ := b.xz.ReadAt(magic[:], 0); n == len(magic) && string(magic[:]) == cpioStrippedMagic {
		c.problem("", "the payload is a stripped cpio archive (magic %s, rpm 4.12 and later, for files of 4 GiB and more): not read", cpioStrippedMagic)
		return nil
	}
	links := map[int64]*linkSet{}
	defer b.finishLinks(links)
	var off int64
	for ord := 0; ; ord++ {
		hdr, data, err := cpioHeaderAt(b.xz, off, size)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			c.problem("", "bad %s archive after %d members%s: %v", b.kind, ord, b.afterMember(), err)
			return nil
		}
		if msg := b.admit(ord, hdr.Name, hdr.Linkname, 0); msg != "" {
			c.problem("", "%s", msg)
			return nil
		}
		b.last = hdr.Name
		if hdr.Size > size-data {
			c.problem("", "bad %s archive: the stream breaks off inside member %q (%d bytes declared): %v", b.kind, hdr.Name, hdr.Size, io.ErrUnexpectedEOF)
			return nil
		}
		b.cpioAt = data
		if err := b.cpioMember(ord, hdr, nil, links, c); err != nil {
			return b.memberErr(c, hdr.Name, hdr.Size, err)
		}
		off = (data + hdr.Size + 3) &^ 3 // newc pads the data (a symlink's target) to 4 bytes of the archive
	}
}

// cpioHeaderAt reads the newc header at off of the size bytes of r and
// returns it with the offset of its data (past the name and, for a
// symlink, its target, each padded as newc pads them). io.EOF is the
// trailer, or the end of the bytes.
func cpioHeaderAt(r io.ReaderAt, off, size int64) (*cpio.Header, int64, error) {
	cr := &countReader{r: io.NewSectionReader(r, off, size-off)}
	hdr, err := cpio.NewReader(cr).Next()
	if err != nil {
		return nil, 0, err
	}
	return hdr, off + cr.n, nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
