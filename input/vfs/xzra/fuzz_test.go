package xzra

import (
	"bytes"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// FuzzOpen: any bytes open with an error or read with errors, never a
// panic, and never allocate more than the budget and the bytes read.
func FuzzOpen(f *testing.F) {
	f.Add(compress(f, sample(3*4096, 30), 4096, uxz.CRC32))
	f.Add(compress(f, sample(2*4096+9, 31), 4096, uxz.SHA256))
	f.Add(emptyStream())
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := Open(bytes.NewReader(b), int64(len(b)), Options{Workers: -1, MemoryBudget: 4 << 20})
		if err != nil {
			return
		}
		defer x.Close()
		buf := make([]byte, 8192)
		for off := int64(0); off < min(x.Size(), 1<<20); off += 5000 {
			x.ReadAt(buf, off)
		}
	})
}
