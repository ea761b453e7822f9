package main

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// evict drops a file's clean pages from the page cache with
// posix_fadvise(POSIX_FADV_DONTNEED); it needs no privileges, unlike
// /proc/sys/vm/drop_caches. Dirty pages are written back first.
func evict(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

// resident returns the bytes of a file that are in the page cache
// (mmap + mincore, as fincore does).
func resident(path string, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, err
	}
	defer unix.Munmap(data)
	page := int64(os.Getpagesize())
	vec := make([]byte, (size+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		return 0, errno
	}
	var n int64
	for i, v := range vec {
		if v&1 != 0 {
			n += min(page, size-int64(i)*page)
		}
	}
	return n, nil
}
