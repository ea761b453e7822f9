// Package fsutil opens files read from untrusted trees (build inputs, the
// policy file) without ever blocking: a FIFO or device swapped in after a
// directory walk saw a regular file would otherwise hang open(2) forever.
package fsutil

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openFlags opens for reading without waiting for a FIFO writer or a
// device; the type is checked after opening (no stat-then-open race).
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

// ErrNotRegular is wrapped by Open and OpenIn when the name is not a
// regular file (FIFO, socket, device, directory).
var ErrNotRegular = fmt.Errorf("not a regular file")

// Open opens name for reading if, once opened, it is a regular file; the
// FileInfo is the opened file's. Anything else is closed again and fails
// with a *fs.PathError wrapping ErrNotRegular (naming the file type).
func Open(name string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	return regular(f, name)
}

// OpenIn is Open for a name inside root (os.Root refuses escapes).
func OpenIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	return regular(f, name)
}

func regular(f *os.File, name string) (*os.File, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	return f, fi, nil
}

// kind names a non-regular file type for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
