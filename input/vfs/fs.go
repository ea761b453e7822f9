package vfs

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"time"
)

// FS returns the merged tree as an fs.FS. It also implements fs.StatFS and
// fs.ReadLinkFS (ReadLink, Lstat): Open and Stat follow symlinks with
// Lookup's rules, ReadDir lists symlinks as symlinks. Directories are
// synthesised with mode fs.ModeDir|0o755 and a zero ModTime. Opened files
// implement io.ReaderAt and io.Seeker. Errors are *fs.PathError wrapping
// fs.ErrNotExist, fs.ErrInvalid, ErrSymlinkLoop or ErrOutsideRoot.
func (t *Tree) FS() *TreeFS { return &TreeFS{t: t} }

// TreeFS is the fs.FS view of a Tree; see Tree.FS.
type TreeFS struct{ t *Tree }

// Open opens name (symlinks followed).
func (f *TreeFS) Open(name string) (fs.File, error) {
	real, err := f.resolve("open", name, true)
	if err != nil {
		return nil, err
	}
	if e := f.t.files[real]; e != nil {
		return &file{e: e, info: entryInfo(path.Base(name), e)}, nil
	}
	return &dir{t: f.t, real: real, info: dirInfo(path.Base(name))}, nil
}

// Stat describes name, following symlinks.
func (f *TreeFS) Stat(name string) (fs.FileInfo, error) {
	real, err := f.resolve("stat", name, true)
	if err != nil {
		return nil, err
	}
	return f.t.info(path.Base(name), real), nil
}

// Lstat describes name without following a symlink in its last element.
func (f *TreeFS) Lstat(name string) (fs.FileInfo, error) {
	real, err := f.resolve("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return f.t.info(path.Base(name), real), nil
}

// ReadLink returns the stored target of the symlink name; a name that is
// not a symlink fails with fs.ErrInvalid.
func (f *TreeFS) ReadLink(name string) (string, error) {
	real, err := f.resolve("readlink", name, false)
	if err != nil {
		return "", err
	}
	e := f.t.files[real]
	if e == nil || !e.IsLink() {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return e.Link, nil
}

func (f *TreeFS) resolve(op, name string, followLast bool) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	real, err := f.t.resolve(name, followLast)
	if err != nil {
		if errors.Is(err, ErrNotDir) {
			err = errors.Join(err, fs.ErrNotExist)
		}
		return "", &fs.PathError{Op: op, Path: name, Err: err}
	}
	return real, nil
}

// info describes the node at real path under the given name.
func (t *Tree) info(name, real string) fs.FileInfo {
	if e := t.files[real]; e != nil {
		return entryInfo(name, e)
	}
	return dirInfo(name)
}

// fileInfo implements fs.FileInfo; Sys returns the *Entry for entries.
type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
	e    *Entry
}

func entryInfo(name string, e *Entry) fileInfo {
	return fileInfo{name: name, size: e.Size, mode: e.Mode, mod: e.ModTime, e: e}
}

func dirInfo(name string) fileInfo { return fileInfo{name: name, mode: fs.ModeDir | 0o755} }

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return i.mode }
func (i fileInfo) ModTime() time.Time { return i.mod }
func (i fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fileInfo) Sys() any {
	if i.e == nil {
		return nil
	}
	return i.e
}

// file is an open regular file (or a symlink's target). The backend is
// opened on first read.
type file struct {
	e    *Entry
	info fileInfo
	ra   ReaderAt
	off  int64
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }

func (f *file) reader() (ReaderAt, error) {
	if f.e == nil {
		return nil, fs.ErrClosed
	}
	if f.ra == nil {
		ra, err := f.e.Open()
		if err != nil {
			return nil, err
		}
		f.ra = ra
	}
	return f.ra, nil
}

func (f *file) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (f *file) ReadAt(p []byte, off int64) (int, error) {
	ra, err := f.reader()
	if err != nil {
		return 0, err
	}
	if off >= f.info.size {
		return 0, io.EOF
	}
	return ra.ReadAt(p, off)
}

func (f *file) Seek(offset int64, whence int) (int64, error) {
	if f.e == nil {
		return 0, fs.ErrClosed
	}
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.info.size
	}
	if offset < 0 {
		return 0, fs.ErrInvalid
	}
	f.off = offset
	return offset, nil
}

func (f *file) Close() error {
	if f.e == nil {
		return fs.ErrClosed
	}
	f.e = nil
	if f.ra != nil {
		return f.ra.Close()
	}
	return nil
}

// dir is an open directory.
type dir struct {
	t    *Tree
	real string
	info fileInfo
	pos  int
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.info, nil }

func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.real, Err: errors.New("is a directory")}
}

func (d *dir) Close() error { return nil }

// ReadDir lists children in name order; symlinks are reported as symlinks.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	names := d.t.children[d.real]
	rest := names[min(d.pos, len(names)):]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	out := make([]fs.DirEntry, len(rest))
	for i, name := range rest {
		out[i] = fs.FileInfoToDirEntry(d.t.info(name, path.Join(d.real, name)))
	}
	d.pos += len(rest)
	return out, nil
}
