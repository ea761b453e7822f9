package model

import (
	"bytes"
	"io"
	"testing"
)

// countReader counts ReadAt calls.
type countReader struct {
	r     io.ReaderAt
	calls int
}

func (c *countReader) ReadAt(p []byte, off int64) (int, error) {
	c.calls++
	return c.r.ReadAt(p, off)
}

// TestPageCache: every read returns what the file holds (short reads at
// the end with io.EOF), small reads within a page cost one read per page.
func TestPageCache(t *testing.T) {
	data := make([]byte, 3*pageSize+100)
	for i := range data {
		data[i] = byte(i * 7)
	}
	src := &countReader{r: bytes.NewReader(data)}
	c := newPageCache(src, int64(len(data)))
	for _, tt := range []struct{ off, n int }{
		{0, 4}, {0, 64}, {100, 300}, {3 * pageSize, 50}, {3*pageSize + 90, 10}, {3*pageSize + 90, 40},
		{pageSize - 2, 4}, {len(data) - 1, 1}, {len(data), 5}, {5, 2 * pageSize},
	} {
		got := make([]byte, tt.n)
		n, err := c.ReadAt(got, int64(tt.off))
		want := data[min(tt.off, len(data)):min(tt.off+tt.n, len(data))]
		if n != len(want) || !bytes.Equal(got[:n], want) || (n < tt.n) != (err == io.EOF) {
			t.Errorf("ReadAt(%d, %d) = %d, %v", tt.off, tt.n, n, err)
		}
	}
	if src.calls != 4 { // pages 0 and 3, a read straddling pages, a large read
		t.Errorf("%d reads of the file, want 4", src.calls)
	}
}
