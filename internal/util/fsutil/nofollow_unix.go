//go:build unix

package fsutil

import "syscall"

// oNoFollow makes open(2) fail on a symlink in the last element.
const oNoFollow = syscall.O_NOFOLLOW
