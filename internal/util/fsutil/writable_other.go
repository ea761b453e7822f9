//go:build !unix

package fsutil

// writable: this system's permissions are not asked ahead; WriteFile
// reports them.
func writable(string, bool) error { return nil }
