package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckWritable tells, before anything is written, why WriteFile(name)
// would fail where it can be known without writing: name is a folder;
// its folder does not exist, is not a folder or may not be written to
// (access(2) with W_OK|X_OK on Unix, which also fails on a read-only
// file system); or, for a name written in place (a device, a FIFO,
// /dev/stdout), name itself may not be written. It creates nothing. A
// full disk or a folder removed later still fails only at WriteFile.
func CheckWritable(name string) error {
	mode, inPlace, err := writeMode(name)
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%s is not a folder", filepath.Dir(name))
	case err != nil:
		return err
	case mode.IsDir():
		return fmt.Errorf("%s is a folder, not a file", name)
	case inPlace:
		if err := writable(name, false); err != nil {
			return fmt.Errorf("%s cannot be written: %w", name, err)
		}
		return nil
	}
	dir := filepath.Dir(name)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the folder %s does not exist", dir)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	}
	if err := writable(dir, true); err != nil {
		return fmt.Errorf("the folder %s cannot be written to: %w", dir, err)
	}
	return nil
}
