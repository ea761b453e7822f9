package vfs

// IsFault reports whether v, a value recovered from a panic, is a memory
// fault that runtime/debug.SetPanicOnFault turned into a panic (a view
// from Map touched past the end of a file that shrank), as opposed to a
// bug, which the caller should panic with again.
func IsFault(v any) bool {
	_, ok := v.(interface{ Addr() uintptr })
	return ok
}
