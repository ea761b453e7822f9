//go:build unix

package lint

import (
	"io/fs"
	"syscall"
)

// ownerOf is the user id owning fi; ok is false where the system keeps no
// owner.
func ownerOf(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// everyoneWrites reports a folder any user may create files in (mode
// o+w, sticky or not: the sticky bit stops renaming others' files, not
// planting new ones).
func everyoneWrites(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o002 != 0 }
