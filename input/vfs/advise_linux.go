package vfs

import (
	"os"

	"golang.org/x/sys/unix"
)

// adviseRandom turns read-ahead off for f (posix_fadvise RANDOM); errors
// are ignored: it is only a hint.
func adviseRandom(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = unix.Fadvise(int(fd), 0, 0, unix.FADV_RANDOM) })
	}
}
