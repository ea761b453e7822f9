//go:build unix

package benchtree_test

import (
	"syscall"
	"time"
)

// cpuTime is the user plus system CPU time of the process so far, all
// threads (the garbage collector's included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
