//go:build unix

package vfs

import (
	"io/fs"
	"syscall"
)

// linkIdent returns the device and inode of a regular file that has more
// than one hard link; ok is false for a file with one link.
func linkIdent(info fs.FileInfo) (id [2]uint64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink <= 1 {
		return id, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
