//go:build unix

package fsutil

import "syscall"

// oNoFollow makes open(2) fail on a symlink in the last element.
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock makes open(2) return at once for a FIFO (ENXIO when no
// process reads it) or a device that would wait.
const oNonBlock = syscall.O_NONBLOCK

// errNoReader is open(2)'s error for a FIFO no process reads, with
// O_NONBLOCK.
var errNoReader = syscall.ENXIO
