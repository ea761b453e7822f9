//go:build !linux

package vfs

import "os"

// adviseRandom is a hint Linux takes (posix_fadvise RANDOM); elsewhere it
// does nothing.
func adviseRandom(*os.File) {}
