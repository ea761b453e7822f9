package vfs

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
)

// maxLinkTarget bounds a symlink target read from an archive member.
const maxLinkTarget = 4096

// zipBackend serves a zip or wheel read in place. Stored members are
// sections of the file; deflated members are decompressed on Open into
// memory (up to Options.MaxMemberBytes) or into a temporary file that the
// reader's Close removes.
type zipBackend struct {
	f      *os.File
	files  []*zip.File
	maxMem int64
	wheel  bool // a .whl: symlink members install as regular files
}

// loadZip indexes a zip. An unreadable file is an error; a file that is
// not a valid zip is a Problem for the whole input.
func loadZip(name string, c *collector, opt Options) (backend, error) {
	f, st, err := fsutil.Open(name)
	if err != nil {
		return nil, err
	}
	b := &zipBackend{f: f, maxMem: opt.MaxMemberBytes, wheel: strings.HasSuffix(strings.ToLower(name), ".whl")}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		c.problem("", "bad zip archive: %v", err)
		return b, nil
	}
	b.files = zr.File
	for i, zf := range zr.File {
		b.index(i, zf, c)
	}
	return b, nil
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
	target, err := readLinkMember(zf)
	if err != nil {
		c.problem(p, "cannot read symlink target: %v", err)
		return
	}
	c.add(&Entry{Path: p, Size: int64(len(target)), Mode: fs.ModeSymlink | 0o777, Link: target, ModTime: zf.Modified, be: b})
}

func readLinkMember(zf *zip.File) (string, error) {
	if zf.UncompressedSize64 > maxLinkTarget {
		return "", fmt.Errorf("target longer than %d bytes", maxLinkTarget)
	}
	rc, err := zf.Open()
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
	rc, err := zf.Open()
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
	rc, err := zf.Open()
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
