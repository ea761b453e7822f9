package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes data to name so that a reader (or a later run) sees the
// old file or the whole new one, never a part: the bytes go to a temporary
// file in the folder of name as given, which is synced and then renamed
// over name. On any failure (a full disk, a read-only folder) the
// temporary file is removed and name is left as it was. The new file
// keeps the permission bits of the regular file it replaces (0644 for a
// new file, and for one that replaces a symlink).
//
// The last element of name is never followed out of its folder: a
// symlink there (one a pull request committed as kpack-lint.sarif ->
// ~/.bashrc) is itself replaced by the new file, and whatever it pointed
// at is left as it was. A name that exists and is a character device
// (/dev/null, a terminal) or a FIFO is written in place, as it cannot be
// replaced; so is what a system link under /dev/ or /proc/ points at
// (/dev/stdout, /dev/fd/3, /proc/self/fd/1: systemLink), a terminal, a
// pipe or the file stdout is redirected to. Such a name is opened
// without waiting (O_NONBLOCK): a FIFO that no process reads fails at
// once (ENXIO: "no process reads it") instead of blocking the run. A
// block device or socket is refused (ErrNotRegular). Any other symlink,
// also one to /dev/null, is replaced: to discard a report name /dev/null
// itself. The folders on the way to name are resolved as the system does
// (the caller chose them; CheckOutput refuses the ones that lead into an
// input or out of the workspace).
func WriteFile(name string, data []byte) error {
	mode, inPlace, err := writeMode(name)
	if err != nil {
		return err
	}
	if inPlace {
		return writeInPlace(name, data, mode&fs.ModeSymlink == 0)
	}
	perm := fs.FileMode(0o644)
	if mode != 0 && mode.IsRegular() { // 0: no file yet (a mode of 0 is a regular file's type)
		perm = mode.Perm()
	}
	if err := replace(name, data, perm); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // name the file asked for, not the temporary one
		}
		return &fs.PathError{Op: "write", Path: name, Err: fmt.Errorf("%w (the previous file is left as it was)", err)}
	}
	return nil
}

// replace writes data to a temporary file beside name (in its folder as
// given) and renames it over name, which replaces a symlink there rather
// than its target; the temporary file is removed on failure.
func replace(name string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = writeSynced(f, data, perm)
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// writeMode returns name's own mode (os.Lstat; 0 when it does not exist
// yet) and whether it is written in place: a non-regular file, or a
// systemLink.
func writeMode(name string) (fs.FileMode, bool, error) {
	fi, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	m := fi.Mode()
	if m&fs.ModeSymlink == 0 {
		if m&(fs.ModeSocket|fs.ModeDevice) != 0 && m&fs.ModeCharDevice == 0 {
			return m, false, &fs.PathError{Op: "write", Path: name, Err: fmt.Errorf("%w (%s): give a file, a FIFO or - for stdout", ErrNotRegular, kind(m))}
		}
		return m, !m.IsRegular(), nil
	}
	return m, systemLink(name), nil
}

// systemLink reports whether the symlink name is one the system provides
// for a stream: under /dev/ or /proc/ (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N), folders no build or pull request writes to. WriteFile
// writes through such a link in place (truncating what it points at: a
// terminal, a pipe, the file stdout is redirected to) and replaces every
// other symlink.
func systemLink(name string) bool {
	abs, err := filepath.Abs(name)
	return err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/"))
}

func writeSynced(f *os.File, data []byte, perm fs.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeInPlace opens name for writing, without creating it and without
// waiting (O_NONBLOCK: a FIFO no process reads fails with ENXIO); noFollow
// refuses a symlink swapped in since name was looked at. What it opened
// must still be a character device, a FIFO or (through a system link) a
// regular file.
func writeInPlace(name string, data []byte, noFollow bool) error {
	flags := os.O_WRONLY | os.O_TRUNC | oNonBlock
	if noFollow {
		flags |= oNoFollow
	}
	f, err := os.OpenFile(name, flags, 0)
	if errors.Is(err, errNoReader) {
		return &fs.PathError{Op: "write", Path: name, Err: errors.New("a FIFO that no process reads (start its reader first, or write to a file)")}
	}
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !inPlaceKind(fi.Mode()) {
		err = &fs.PathError{Op: "write", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// inPlaceKind: the kinds of file writeInPlace writes.
func inPlaceKind(m fs.FileMode) bool {
	return m.IsRegular() || m&fs.ModeNamedPipe != 0 || m&fs.ModeCharDevice != 0
}

// WrittenInPlace reports whether WriteFile(name) writes into what is
// there (a FIFO, a character device, a system link's stream), which can
// take as long as its reader wants, rather than replacing a file.
func WrittenInPlace(name string) bool {
	_, inPlace, err := writeMode(name)
	return err == nil && inPlace
}
