package vfs

import (
	"io"

	"github.com/klauspost/compress/zstd"
)

// maxZstdWindow refuses zstd frames whose window would need more memory
// (128 MiB is zstd --long's default).
const maxZstdWindow = 128 << 20

// zstdReader decodes a zstd stream with one goroutine and low memory.
func zstdReader(r io.Reader) (io.Reader, func(), error) {
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxZstdWindow))
	if err != nil {
		return nil, func() {}, err
	}
	return zr, zr.Close, nil
}
