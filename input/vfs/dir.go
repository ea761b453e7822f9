package vfs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync/atomic"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
)

// dirBackend serves a directory input through os.Root, which refuses any
// path (or symlink) that would leave the directory.
type dirBackend struct {
	root *os.Root
	// dirs keeps the folders the walk opened (up to maxOpenDirs in the
	// process), by path, so that opening a file costs one openat relative
	// to its folder instead of one per path component.
	dirs map[string]*os.Root
	// links holds the device and inode of the files that have more than
	// one hard link (Entry.Identity); the walk fills it, readers only read.
	links map[*Entry][2]uint64
}

// openDirs counts the folder descriptors trees keep open, at most
// maxOpenDirs in the process (the rest are reopened by path).
var openDirs atomic.Int64

const maxOpenDirs = 256

func (b *dirBackend) addLink(dir *os.Root, p, name string, info fs.FileInfo, c *collector) {
	target, err := dir.Readlink(name)
	if err != nil {
		c.problem(p, "cannot read symlink: %v", err)
		return
	}
	target = filepath.ToSlash(target)
	c.add(&Entry{Path: p, Size: int64(len(target)), Mode: fs.ModeSymlink | 0o777, Link: target, ModTime: info.ModTime(), be: b})
}

// openDirect opens e for Entry.OpenDirect: a large file is told first
// that it is read at random (POSIX_FADV_RANDOM), as the kernel would
// otherwise read ahead 16 KiB from disk after a read of a few header
// bytes, and check reads only headers and an archive's TOC.
func (b *dirBackend) openDirect(e *Entry) (ReaderAt, error) { return openRandom(b, e) }

func openRandom(b backend, e *Entry) (ReaderAt, error) {
	r, err := b.open(e)
	if err == nil && e.Size >= randomAccessSize {
		adviseRandom(r.(*fileReader).File)
	}
	return r, err
}

// randomAccessSize is the file size from which openDirect turns read-ahead off.
const randomAccessSize = 64 << 10

// open opens the entry without blocking and fails unless it is still a
// regular file: a FIFO or device swapped in after the walk is refused.
// It opens the file relative to its folder when the walk kept that open.
func (b *dirBackend) open(e *Entry) (ReaderAt, error) {
	dir, name := b.root, filepath.FromSlash(e.Path)
	if d := b.dirs[path.Dir(e.Path)]; d != nil {
		dir, name = d, path.Base(e.Path)
	}
	f, _, err := fsutil.OpenIn(dir, name)
	if err != nil {
		return nil, err
	}
	return &fileReader{File: f, size: e.Size}, nil
}

// ident is the device and inode of a file with several hard links.
func (b *dirBackend) ident(e *Entry) (Identity, bool) {
	id, ok := b.links[e]
	return Identity{be: b, a: id[0], b: id[1]}, ok
}

func (b *dirBackend) close() error {
	if b.root == nil {
		return nil
	}
	for p, d := range b.dirs {
		if p != "." {
			d.Close()
			openDirs.Add(-1)
		}
	}
	b.dirs = nil
	err := b.root.Close()
	b.root = nil
	return err
}

// fileBackend serves a single regular file given as an input; its tree
// holds just that file under its base name.
type fileBackend struct {
	name string
}

func loadFile(name string, c *collector) (backend, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	base := path.Base(filepath.ToSlash(name))
	if base == "." || base == "/" || base == ".." {
		return nil, fmt.Errorf("cannot name a file input %q", name)
	}
	c.add(&Entry{Path: base, Size: info.Size(), Mode: info.Mode().Perm(), ModTime: info.ModTime(), be: &fileBackend{name: name}})
	return nil, nil
}

func (b *fileBackend) open(e *Entry) (ReaderAt, error) {
	f, _, err := fsutil.Open(b.name)
	if err != nil {
		return nil, err
	}
	return &fileReader{File: f, size: e.Size}, nil
}

func (b *fileBackend) close() error { return nil }

func (b *fileBackend) openDirect(e *Entry) (ReaderAt, error) { return openRandom(b, e) }
