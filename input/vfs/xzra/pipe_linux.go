package xzra

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked of xz's stdout pipe (F_SETPIPE_SZ; 1
// MiB is Linux's default pipe-max-size).
const pipeSize = 1 << 20

// xzPipe returns a pipe for xz's stdout whose read end is blocking (read
// with plain read(2), not through the runtime's poller) and holds
// pipeSize bytes where Linux allows it.
func xzPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	unix.FcntlInt(uintptr(p[0]), unix.F_SETPIPE_SZ, pipeSize)
	return os.NewFile(uintptr(p[0]), "xz stdout"), os.NewFile(uintptr(p[1]), "xz stdout"), nil
}

// batch waits, while xz is still writing, until the pipe r holds want
// bytes or half its capacity, sleeping a millisecond at a time: xz
// writes 8 KiB at a time, and a reader that reads each chunk as it
// comes is woken, and wakes xz, for every one (a quarter of the CPU of
// a decode on a virtual machine); one that waits for a batch is woken a
// hundred times less.
func batch(r *os.File, want int) {
	fd := int(r.Fd())
	capacity, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		return
	}
	want = min(want, capacity/2)
	for {
		n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
		if err != nil || n >= want {
			return
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if k, err := unix.Poll(fds, 0); err != nil || k > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
			return // xz has ended (or the pipe failed): read what is left
		}
		// liblzma writes some 100 MB/s of a block: 10 ns a byte.
		time.Sleep(max(200*time.Microsecond, time.Duration(want-n)*10*time.Nanosecond))
	}
}
