package vfs

import (
	"os"
	"unsafe"
)

// IsFault reports whether v, a value recovered from a panic, is a memory
// fault (runtime/debug.SetPanicOnFault) inside the pages of view, a view
// from Map: the mapped file shrank and the view was touched past its new
// end. Any other panic, a fault elsewhere included (a bug, such as a view
// touched after its unmap), is not, and the caller should panic with it
// again.
func IsFault(v any, view []byte) bool {
	f, ok := v.(interface{ Addr() uintptr })
	if !ok || len(view) == 0 {
		return false
	}
	page := uintptr(os.Getpagesize())
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(view)))
	hi := lo + uintptr(len(view))
	lo &^= page - 1
	return f.Addr() >= lo && f.Addr() < hi
}
