package vfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// nopCloser turns a sized ReaderAt without Close into a ReaderAt.
type nopCloser struct {
	io.ReaderAt
	size int64
}

func (n nopCloser) Close() error { return nil }
func (n nopCloser) Size() int64  { return n.size }

// memReader serves bytes held in memory.
func memReader[T string | []byte](b T) ReaderAt {
	r := bytes.NewReader([]byte(b))
	return nopCloser{r, r.Size()}
}

// sectionReader serves size bytes at off of a shared file without owning it.
func sectionReader(r io.ReaderAt, off, size int64) ReaderAt {
	return nopCloser{io.NewSectionReader(r, off, size), size}
}

// fileReader owns an open file; Close closes it and, if remove is set,
// deletes it (a temporary spill file).
type fileReader struct {
	*os.File
	size   int64
	remove bool
}

func (f *fileReader) Size() int64 { return f.size }

func (f *fileReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.size {
		return 0, io.EOF
	}
	if rest := f.size - off; int64(len(p)) > rest {
		n, err := f.File.ReadAt(p[:rest], off)
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	return f.File.ReadAt(p, off)
}

func (f *fileReader) Close() error {
	err := f.File.Close()
	if f.remove {
		if rerr := os.Remove(f.File.Name()); err == nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = rerr
		}
	}
	return err
}

// spill copies r (expected size bytes) into memory when size <= limit, else
// into a temporary file that the returned reader's Close removes. A stream
// shorter or longer than size is an error.
func spill(r io.Reader, size, limit int64) (ReaderAt, error) {
	if size <= limit {
		buf := make([]byte, size)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("short member: %w", err)
		}
		return memReader(buf), checkEOF(r)
	}
	f, err := createTemp("kpack-lint-vfs-*")
	if err != nil {
		return nil, err
	}
	fr := &fileReader{File: f, size: size, remove: true}
	n, err := io.Copy(f, io.LimitReader(r, size))
	if err == nil && n != size {
		err = fmt.Errorf("short member: %d of %d bytes", n, size)
	}
	if err == nil {
		err = checkEOF(r)
	}
	if err != nil {
		fr.Close()
		return nil, err
	}
	return fr, nil
}

// checkEOF reads one more byte so that checksumming readers (zip) verify,
// and rejects streams longer than declared.
func checkEOF(r io.Reader) error {
	var b [1]byte
	n, err := r.Read(b[:])
	for n == 0 && err == nil {
		n, err = r.Read(b[:])
	}
	if n > 0 {
		return fmt.Errorf("member longer than its declared size")
	}
	if err == io.EOF {
		return nil
	}
	return err
}

// createTemp makes a temporary file in os.TempDir and unlinks it at once
// where the system allows (POSIX): the open handle keeps the data, and
// nothing is left behind if the process is killed. Elsewhere Close removes
// it by name.
func createTemp(pattern string) (*os.File, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name())
	return f, nil
}
