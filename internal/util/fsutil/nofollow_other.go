//go:build !unix

package fsutil

// oNoFollow: this system's open has no such flag.
const oNoFollow = 0
