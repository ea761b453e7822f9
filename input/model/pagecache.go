package model

import "io"

// pageCache serves small reads of a file from the last two 4 KiB pages it
// read, one pread per page. Parsing an ELF or PE header makes a handful of
// small reads close together (headers at the start; section headers, their
// names and the kpack sections near the end), so this saves most of the
// system calls without reading more pages than the parser touches. Reads
// that are large or straddle a page boundary go to the file. One cache
// serves one file at a time (reset); it is not safe for concurrent use.
type pageCache struct {
	r     io.ReaderAt
	size  int64
	pages [2]page
	next  int // the page to replace
}

type page struct {
	off int64 // -1 when empty
	n   int
	buf [pageSize]byte
}

const pageSize = 4096

func newPageCache(r io.ReaderAt, size int64) *pageCache {
	c := &pageCache{}
	c.reset(r, size)
	return c
}

// Prefetch passes the hint to the underlying reader when it takes hints
// (hostbin.Prefetcher): a member of a package read in place.
func (c *pageCache) Prefetch(off, n int64) {
	if pf, ok := c.r.(interface{ Prefetch(off, n int64) }); ok {
		pf.Prefetch(off, n)
	}
}

// reset points the cache at another file, dropping the cached pages.
func (c *pageCache) reset(r io.ReaderAt, size int64) {
	c.r, c.size = r, size
	c.pages[0].off, c.pages[1].off = -1, -1
}

// ReadAt implements io.ReaderAt with the underlying reader's results.
func (c *pageCache) ReadAt(p []byte, off int64) (int, error) {
	start := off &^ (pageSize - 1)
	if off < 0 || len(p) > pageSize || off+int64(len(p)) > start+pageSize {
		return c.r.ReadAt(p, off)
	}
	pg := c.page(start)
	if pg == nil {
		return c.r.ReadAt(p, off)
	}
	n := copy(p, pg.buf[min(int(off-start), pg.n):pg.n])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// page returns the cached page at start, reading it if needed; nil when
// the read fails (the caller then reads directly and gets the error).
func (c *pageCache) page(start int64) *page {
	for i := range c.pages {
		if c.pages[i].off == start {
			return &c.pages[i]
		}
	}
	pg := &c.pages[c.next]
	c.next = 1 - c.next
	n, err := c.r.ReadAt(pg.buf[:min(pageSize, max(c.size-start, 0))], start)
	if err != nil && err != io.EOF || n < int(min(pageSize, max(c.size-start, 0))) {
		pg.off = -1
		return nil
	}
	pg.off, pg.n = start, n
	return pg
}
