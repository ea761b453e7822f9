package fsutil

import (
	"os"
	"path/filepath"
)

// DisplayPath is how reports name a file the user gave: as given when
// relative, else its base name (no machine paths in reports).
func DisplayPath(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Base(p)
	}
	return filepath.ToSlash(p)
}

// RelToWD writes p relative to the working directory when it can, so
// reports name the file as the user would type it.
func RelToWD(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil {
		return rel
	}
	return p
}
