//go:build unix

package fsutil

import "golang.org/x/sys/unix"

// writable asks the system whether this process may write name, or
// create files in it when it is a folder (W_OK|X_OK), as access(2)
// answers; EROFS for a read-only file system.
func writable(name string, folder bool) error {
	mode := uint32(unix.W_OK)
	if folder {
		mode |= unix.X_OK
	}
	return unix.Access(name, mode)
}
