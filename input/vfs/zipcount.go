package vfs

import (
	"bufio"
	"encoding/binary"
	"io"
)

// countZipRecords counts the central-directory records archive/zip.NewReader
// would read from the zip of size bytes in r, stopping past limit: it finds
// the directory as archive/zip does (the end record in the last 1 KiB, then
// 65 KiB, the zip64 locator, the base offset) and reads headers until one
// does not start with the signature. archive/zip reads headers to the first
// bad one whatever the end record's count says, so the count is taken from
// the records, not from the end record. A directory it cannot locate gives
// (0, false): zip.NewReader then fails on its own.
func countZipRecords(r io.ReaderAt, size int64, limit int) (n int, over bool) {
	dirOff, ok := zipDirectoryStart(r, size)
	if !ok {
		return 0, false
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, dirOff, size-dirOff), 64<<10)
	var hdr [46]byte
	for n <= limit {
		if _, err := io.ReadFull(br, hdr[:]); err != nil || binary.LittleEndian.Uint32(hdr[:]) != 0x02014b50 {
			return n, false
		}
		le := binary.LittleEndian
		skip := int(le.Uint16(hdr[28:])) + int(le.Uint16(hdr[30:])) + int(le.Uint16(hdr[32:]))
		if _, err := br.Discard(skip); err != nil {
			return n + 1, false
		}
		n++
	}
	return n, true
}

// zipDirectoryStart is the file offset of the first central-directory
// header, located as archive/zip's readDirectoryEnd locates it.
func zipDirectoryStart(r io.ReaderAt, size int64) (int64, bool) {
	var buf []byte
	var endOff int64 = -1
	for _, n := range []int64{1024, 65 * 1024} {
		n = min(n, size)
		buf = make([]byte, n)
		if k, _ := r.ReadAt(buf, size-n); int64(k) != n {
			return 0, false
		}
		if p := endSignature(buf); p >= 0 {
			buf, endOff = buf[p:], size-n+int64(p)
			break
		}
		if n == size {
			break
		}
	}
	if endOff < 0 || len(buf) < 22 {
		return 0, false
	}
	le := binary.LittleEndian
	records, dirSize, dirOff := uint64(le.Uint16(buf[10:])), uint64(le.Uint32(buf[12:])), uint64(le.Uint32(buf[16:]))
	if records == 0xffff || dirSize == 0xffff || dirOff == 0xffffffff {
		var loc [20]byte
		if endOff >= 20 {
			if k, _ := r.ReadAt(loc[:], endOff-20); k == 20 && le.Uint32(loc[:]) == 0x07064b50 && le.Uint32(loc[4:]) == 0 && le.Uint32(loc[16:]) == 1 {
				p := int64(le.Uint64(loc[8:]))
				var d64 [56]byte
				if p < 0 || p > size {
					return 0, false
				}
				if k, _ := r.ReadAt(d64[:], p); k != 56 || le.Uint32(d64[:]) != 0x06064b50 {
					return 0, false
				}
				endOff, dirSize, dirOff = p, le.Uint64(d64[40:]), le.Uint64(d64[48:])
			}
		}
	}
	if dirSize > 1<<62 || dirOff > 1<<62 {
		return 0, false
	}
	base := endOff - int64(dirSize) - int64(dirOff)
	if o := base + int64(dirOff); o < 0 || o >= size {
		return 0, false
	}
	if base > 0 {
		var sig [4]byte
		if k, _ := r.ReadAt(sig[:], int64(dirOff)); k == 4 && le.Uint32(sig[:]) == 0x02014b50 {
			base = 0
		}
	}
	return base + int64(dirOff), true
}

// endSignature is the offset of the last end-of-central-directory record
// in b whose comment fits, as archive/zip's findSignatureInBlock finds it;
// -1 when there is none or its comment is cut.
func endSignature(b []byte) int {
	for i := len(b) - 22; i >= 0; i-- {
		if b[i] == 'P' && b[i+1] == 'K' && b[i+2] == 0x05 && b[i+3] == 0x06 {
			if n := int(b[i+20]) | int(b[i+21])<<8; n+22+i > len(b) {
				return -1
			}
			return i
		}
	}
	return -1
}
