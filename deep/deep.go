// Package deep verifies kpack archives byte by byte for `check --deep`:
// every blob or zstd frame the TOC references is read and decompressed, and
// every code object's ELF header is decoded into a target ID.
package deep

import (
	"io"

	"github.com/rocm-tools/kpack-lint/build"
	"github.com/rocm-tools/kpack-lint/kpack"
)

// Key names one stored code object: archive real path, kernel key, TOC arch.
type Key struct {
	Archive, Kernel, Arch string
}

// Object is what deep verification learned about one stored code object.
type Object struct {
	Code   kpack.Code // Success, or why kpack_get_kernel would fail (DECOMPRESSION_FAILED, IO_ERROR, ...)
	Target string     // target ID decoded from the ELF header ("" when not a valid AMDGPU code object)
	Err    string     // why the bytes are not a usable AMDGPU code object ("" when they are)
	Size   uint64     // decompressed size in bytes
	Sum    [32]byte   // sha256 of the decompressed bytes (zero on failure)
}

// Result holds every verified object and the per-archive problems found.
type Result struct {
	Objects  map[Key]Object
	Problems map[string][]kpack.Problem // archive path -> problems found while reading blobs
	Bytes    int64                      // decompressed bytes verified
}

// Options bounds verification. Zero values pick documented defaults.
type Options struct {
	Workers   int       // parallel archives; 0 = GOMAXPROCS
	MaxMemory int64     // bytes of decompressed data held at once across workers; 0 = default
	Progress  io.Writer // progress bar target (a terminal); nil = silent
}

// Verify reads every archive of b that opens. It is a stub until the deep
// package lands: it verifies nothing.
func Verify(b *build.Build, opt Options) *Result {
	return &Result{Objects: map[Key]Object{}, Problems: map[string][]kpack.Problem{}}
}

// Fetch returns the recorded result of fetching kernel key for arch from a,
// falling back to the TOC-only prediction for objects not verified. It is a
// build.FetchFunc.
func (r *Result) Fetch(a *build.Archive, key, arch string) kpack.Code {
	if o, ok := r.Objects[Key{Archive: a.Path, Kernel: key, Arch: arch}]; ok {
		return o.Code
	}
	return build.TOCFetch(a, key, arch)
}
