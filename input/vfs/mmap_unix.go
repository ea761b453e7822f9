//go:build unix

package vfs

import (
	"os"

	"golang.org/x/sys/unix"
)

// Map lends the n bytes at off of r without copying them when r is a
// file (a file of a directory input, or a wheel member spilled to a
// temporary file): data is a read-only view of a shared mapping, valid
// until unmap is called (once). ok is false when r cannot be mapped (a
// member held in memory or read through a decompressor, a range outside
// the file, a failed mmap, a platform without mmap; tarball members are
// read through a section of the archive): read it with ReadAt.
//
// A file that shrinks while it is mapped raises SIGBUS where the view is
// touched past its new end: a goroutine touching the view runs with
// runtime/debug.SetPanicOnFault and recovers (see IsFault). A file
// already shorter than off+n when Map is called is not mapped (ok false):
// a mapping would read zeros, not fault, past the new end within its last
// page, where ReadAt reports the short read.
func Map(r ReaderAt, off int64, n int) (data []byte, unmap func(), ok bool) {
	f, is := r.(*fileReader)
	if !is || n <= 0 || off < 0 || off > f.size || int64(n) > f.size-off {
		return nil, nil, false
	}
	base := off &^ int64(os.Getpagesize()-1)
	length := int(off-base) + n
	var m []byte
	var err error
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, false
	}
	if cerr := rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if err = unix.Fstat(int(fd), &st); err != nil {
			return
		}
		if st.Size < off+int64(n) { // shorter than at the walk: ReadAt reports the short read
			err = unix.EINVAL
			return
		}
		m, err = unix.Mmap(int(fd), base, length, unix.PROT_READ, unix.MAP_SHARED)
	}); cerr != nil || err != nil {
		return nil, nil, false
	}
	_ = unix.Madvise(m, unix.MADV_WILLNEED) // only a hint: start reading the view in on a cold cache
	lo := int(off - base)
	return m[lo : lo+n : lo+n], func() { _ = unix.Munmap(m) }, true
}
