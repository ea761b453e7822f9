//go:build !kpack_zstd

package vfs

import (
	"errors"
	"io"
)

// zstdSupported reports whether tar.zst inputs can be read. The decoder,
// github.com/klauspost/compress v1.20.4, needs "go 1.25" in go.mod; until
// the module is bumped it is built only with -tags kpack_zstd (see zstd.go).
const zstdSupported = false

// errNoZstd is the Problem recorded for a tar.zst input in this build.
var errNoZstd = errors.New("zstd support not built in (needs go 1.25 in go.mod and -tags kpack_zstd)")

func zstdReader(io.Reader) (io.Reader, func(), error) { return nil, func() {}, errNoZstd }
