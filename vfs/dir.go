package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/rocm-tools/kpack-lint/internal/fsutil"
)

// dirBackend serves a directory input through os.Root, which refuses any
// path (or symlink) that would leave the directory.
type dirBackend struct {
	root  *os.Root
	heads []dirHead // per regular file (Entry.loc), read during the walk
}

// dirHead holds the first bytes of a regular file, read during the walk
// while its folder is open: enough to sniff ELF, PE and kpack magics
// without reopening every file by its full path later (which costs one
// open per path component under os.Root).
type dirHead struct {
	b [dirHeadLen]byte
	n int8 // bytes held; -1 when the file could not be read
}

// dirHeadLen is how many leading bytes the walk keeps per file.
const dirHeadLen = 8

// loadDir walks name without following symlinks; hidden directories such
// as .kpack are included. Each directory is opened relative to its parent
// (an os.Root per level), so a tree N folders deep costs N opens, not N
// walks from the top. Unreadable subdirectories and special files
// (devices, sockets, pipes) become Problems.
func loadDir(name string, c *collector) (backend, error) {
	root, err := os.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	b := &dirBackend{root: root}
	if err := b.walk(root, ".", c); err != nil {
		root.Close()
		return nil, err
	}
	return b, nil
}

// walk lists the directory dir (at path p of the input) in name order and
// descends into its subdirectories. Only a failure to list the input root
// itself is an error.
func (b *dirBackend) walk(dir *os.Root, p string, c *collector) error {
	names, err := readDirNames(dir)
	if err != nil {
		if p == "." {
			return err
		}
		c.problem(p, "cannot read: %v", err)
		return nil
	}
	for _, n := range names {
		cp := path.Join(p, n)
		info, err := dir.Lstat(n)
		if err != nil {
			c.problem(cp, "cannot stat: %v", err)
			continue
		}
		if !info.IsDir() {
			b.visit(dir, cp, n, info, c)
			continue
		}
		c.dir(cp)
		sub, err := dir.OpenRoot(n)
		if err != nil {
			c.problem(cp, "cannot read: %v", err)
			continue
		}
		b.walk(sub, cp, c)
		sub.Close()
	}
	return nil
}

// readDirNames returns the names in dir, sorted.
func readDirNames(dir *os.Root) ([]string, error) {
	f, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

func (b *dirBackend) visit(dir *os.Root, p, name string, info fs.FileInfo, c *collector) {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		b.addLink(dir, p, name, info, c)
	case info.Mode().IsRegular():
		c.add(&Entry{Path: p, Size: info.Size(), Mode: info.Mode().Perm(), ModTime: info.ModTime(), be: b, loc: len(b.heads)})
		b.heads = append(b.heads, readDirHead(dir, name))
	default:
		c.problem(p, "skipped special file (%v)", info.Mode().Type())
	}
}

func (b *dirBackend) addLink(dir *os.Root, p, name string, info fs.FileInfo, c *collector) {
	target, err := dir.Readlink(name)
	if err != nil {
		c.problem(p, "cannot read symlink: %v", err)
		return
	}
	target = filepath.ToSlash(target)
	c.add(&Entry{Path: p, Size: int64(len(target)), Mode: fs.ModeSymlink | 0o777, Link: target, ModTime: info.ModTime(), be: b})
}

// readDirHead reads the first dirHeadLen bytes of name in dir.
func readDirHead(dir *os.Root, name string) dirHead {
	h := dirHead{n: -1}
	f, _, err := fsutil.OpenIn(dir, name)
	if err != nil {
		return h
	}
	defer f.Close()
	k, err := io.ReadFull(f, h.b[:])
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		h.n = int8(k)
	}
	return h
}

// head serves up to n leading bytes from the walk's copy when it holds
// them (or the whole file), else by opening the file.
func (b *dirBackend) head(e *Entry, n int) ([]byte, error) {
	if e.loc >= 0 && e.loc < len(b.heads) {
		h := b.heads[e.loc]
		if k := int(h.n); k >= 0 && (n <= k || int64(k) == e.Size) {
			return append([]byte(nil), h.b[:min(n, k)]...), nil
		}
	}
	return openHead(e, n)
}

// open opens the entry without blocking and fails unless it is still a
// regular file: a FIFO or device swapped in after the walk is refused.
func (b *dirBackend) open(e *Entry) (ReaderAt, error) {
	f, _, err := fsutil.OpenIn(b.root, filepath.FromSlash(e.Path))
	if err != nil {
		return nil, err
	}
	return &fileReader{File: f, size: e.Size}, nil
}

func (b *dirBackend) close() error {
	if b.root == nil {
		return nil
	}
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
