package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to name so that a reader (or a later run) sees the
// old file or the whole new one, never a part: the bytes go to a temporary
// file in name's folder, which is synced and then renamed over name. On
// any failure (a full disk, a read-only folder) the temporary file is
// removed and name is left as it was. The new file keeps the permission
// bits of the one it replaces (0644 for a new file). A symlink is followed
// (its target is replaced); a name that exists and is not a regular file
// (/dev/null, /dev/stdout, a FIFO) is written in place, as it cannot be
// replaced.
func WriteFile(name string, data []byte) error {
	target, mode, err := writeTarget(name)
	if err != nil {
		return err
	}
	if mode != 0 && !mode.IsRegular() {
		return writeInPlace(target, data)
	}
	perm := fs.FileMode(0o644)
	if mode != 0 {
		perm = mode.Perm()
	}
	if err := replace(target, data, perm); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // name the file asked for, not the temporary one
		}
		return &fs.PathError{Op: "write", Path: name, Err: fmt.Errorf("%w (the previous file is left as it was)", err)}
	}
	return nil
}

// replace writes data to a temporary file beside target and renames it
// over target, removing the temporary file on failure.
func replace(target string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = writeSynced(f, data, perm)
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// writeTarget resolves symlinks in name and returns the file to replace
// and its mode (0 when it does not exist yet).
func writeTarget(name string) (string, fs.FileMode, error) {
	target := name
	if real, err := filepath.EvalSymlinks(name); err == nil {
		target = real
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, 0, nil
	case err != nil:
		return "", 0, err
	}
	return target, fi.Mode(), nil
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

func writeInPlace(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
