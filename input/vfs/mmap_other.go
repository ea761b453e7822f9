//go:build !unix

package vfs

// Map lends a view of a file's bytes where the platform maps files; here
// it never does (ok false): read with ReadAt.
func Map(r ReaderAt, off int64, n int) (data []byte, unmap func(), ok bool) {
	return nil, nil, false
}
