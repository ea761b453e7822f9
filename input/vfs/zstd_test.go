package vfs

import (
	"io"

	"github.com/klauspost/compress/zstd"
)

func init() {
	compressors["tar.zst"] = func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) }
}
