package vfs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// dirBackend serves a directory input through os.Root, which refuses any
// path (or symlink) that would leave the directory.
type dirBackend struct {
	root *os.Root
}

// loadDir walks name without following symlinks; hidden directories such
// as .kpack are included. Unreadable subdirectories and special files
// (devices, sockets, pipes) become Problems.
func loadDir(name string, c *collector) (backend, error) {
	root, err := os.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	b := &dirBackend{root: root}
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			c.problem(p, "cannot read: %v", err)
			return nil
		}
		if p == "." {
			return nil
		}
		b.visit(p, d, c)
		return nil
	})
	if err != nil {
		root.Close()
		return nil, err
	}
	return b, nil
}

func (b *dirBackend) visit(p string, d fs.DirEntry, c *collector) {
	switch {
	case d.IsDir():
		c.dir(p)
	case d.Type()&fs.ModeSymlink != 0:
		b.addLink(p, c)
	case d.Type().IsRegular():
		b.addFile(p, d, c)
	default:
		c.problem(p, "skipped special file (%v)", d.Type())
	}
}

func (b *dirBackend) addLink(p string, c *collector) {
	target, err := b.root.Readlink(filepath.FromSlash(p))
	if err != nil {
		c.problem(p, "cannot read symlink: %v", err)
		return
	}
	target = filepath.ToSlash(target)
	info, _ := b.root.Lstat(filepath.FromSlash(p))
	e := &Entry{Path: p, Size: int64(len(target)), Mode: fs.ModeSymlink | 0o777, Link: target, be: b}
	if info != nil {
		e.ModTime = info.ModTime()
	}
	c.add(e)
}

func (b *dirBackend) addFile(p string, d fs.DirEntry, c *collector) {
	info, err := d.Info()
	if err != nil {
		c.problem(p, "cannot stat: %v", err)
		return
	}
	c.add(&Entry{Path: p, Size: info.Size(), Mode: info.Mode().Perm(), ModTime: info.ModTime(), be: b})
}

func (b *dirBackend) open(e *Entry) (ReaderAt, error) {
	f, err := b.root.Open(filepath.FromSlash(e.Path))
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
	f, err := os.Open(b.name)
	if err != nil {
		return nil, err
	}
	return &fileReader{File: f, size: e.Size}, nil
}

func (b *fileBackend) close() error { return nil }
