package kpack

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// This file is a minimal, zero-copy MessagePack scanner. It never recurses
// and never allocates from a declared length: skipping a value keeps a single
// counter of pending items, so nesting depth cannot exhaust the stack, and
// every length is checked against the bytes that remain.

type mpKind uint8

const (
	mpNil mpKind = iota
	mpBool
	mpUint // any integer format holding a value >= 0 (msgpack-c POSITIVE_INTEGER)
	mpNegInt
	mpFloat
	mpStr
	mpBin
	mpArray
	mpMap
	mpExt
)

var mpKindNames = [...]string{"nil", "bool", "integer", "negative integer", "float", "string", "binary", "array", "map", "extension"}

func (k mpKind) String() string { return mpKindNames[k] }

// mpHead is the decoded header of one MessagePack value.
type mpHead struct {
	kind mpKind
	off  int    // offset of the value's first byte in the buffer
	body int    // offset of the payload (string bytes, first element, ...)
	n    uint64 // uint value, or length of str/bin/ext, or element count
}

var errMsgpackTruncated = errors.New("truncated MessagePack value")

// mpFixed describes a type byte followed by a big-endian length of extra bytes.
type mpFixed struct {
	kind  mpKind
	extra int
}

var mpLengthTypes = map[byte]mpFixed{
	0xc4: {mpBin, 1}, 0xc5: {mpBin, 2}, 0xc6: {mpBin, 4},
	0xc7: {mpExt, 1}, 0xc8: {mpExt, 2}, 0xc9: {mpExt, 4},
	0xd9: {mpStr, 1}, 0xda: {mpStr, 2}, 0xdb: {mpStr, 4},
	0xdc: {mpArray, 2}, 0xdd: {mpArray, 4},
	0xde: {mpMap, 2}, 0xdf: {mpMap, 4},
}

// readHead decodes the header of the value at off.
func readHead(buf []byte, off int) (mpHead, error) {
	if off < 0 || off >= len(buf) {
		return mpHead{}, errMsgpackTruncated
	}
	b := buf[off]
	h := mpHead{off: off, body: off + 1}
	switch {
	case b <= 0x7f:
		h.kind, h.n = mpUint, uint64(b)
		return h, nil
	case b >= 0xe0:
		h.kind = mpNegInt
		return h, nil
	case b >= 0x80 && b <= 0x8f:
		h.kind, h.n = mpMap, uint64(b&0x0f)
		return h, nil
	case b >= 0x90 && b <= 0x9f:
		h.kind, h.n = mpArray, uint64(b&0x0f)
		return h, nil
	case b >= 0xa0 && b <= 0xbf:
		h.kind, h.n = mpStr, uint64(b&0x1f)
		return h, nil
	}
	return readTagged(buf, h, b)
}

// readTagged decodes the 0xc0..0xdf type bytes.
func readTagged(buf []byte, h mpHead, b byte) (mpHead, error) {
	switch b {
	case 0xc0:
		h.kind = mpNil
		return h, nil
	case 0xc2, 0xc3:
		h.kind, h.n = mpBool, uint64(b-0xc2)
		return h, nil
	case 0xcc, 0xcd, 0xce, 0xcf:
		return readUint(buf, h, 1<<(b-0xcc))
	case 0xd0, 0xd1, 0xd2, 0xd3:
		return readInt(buf, h, 1<<(b-0xd0))
	case 0xca, 0xcb:
		h.kind, h.body = mpFloat, h.body+4*int(b-0xc9)
		return h, checkEnd(buf, h.body)
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
		h.kind, h.n, h.body = mpExt, 1<<(b-0xd4), h.body+1
		return h, checkEnd(buf, h.body)
	}
	f, ok := mpLengthTypes[b]
	if !ok {
		return h, fmt.Errorf("reserved MessagePack type byte 0x%02x", b)
	}
	h, err := readUint(buf, h, f.extra)
	h.kind = f.kind
	if err == nil && f.kind == mpExt {
		h.body++ // the ext type byte
		err = checkEnd(buf, h.body)
	}
	return h, err
}

func checkEnd(buf []byte, end int) error {
	if end > len(buf) {
		return errMsgpackTruncated
	}
	return nil
}

// readUint reads a big-endian unsigned integer of width bytes after the type byte.
func readUint(buf []byte, h mpHead, width int) (mpHead, error) {
	end := h.body + width
	if err := checkEnd(buf, end); err != nil {
		return h, err
	}
	p := buf[h.body:end]
	switch width {
	case 1:
		h.n = uint64(p[0])
	case 2:
		h.n = uint64(binary.BigEndian.Uint16(p))
	case 4:
		h.n = uint64(binary.BigEndian.Uint32(p))
	default:
		h.n = binary.BigEndian.Uint64(p)
	}
	h.kind, h.body = mpUint, end
	return h, nil
}

// readInt reads a signed integer; non-negative values become mpUint as in msgpack-c.
func readInt(buf []byte, h mpHead, width int) (mpHead, error) {
	h, err := readUint(buf, h, width)
	if err != nil {
		return h, err
	}
	shift := 64 - 8*uint(width)
	v := int64(h.n<<shift) >> shift
	if v < 0 {
		h.kind, h.n = mpNegInt, 0
	}
	return h, nil
}

// mpSkip returns the offset just past the value at off. It is iterative.
func mpSkip(buf []byte, off int) (int, error) {
	pending := uint64(1)
	for pending > 0 {
		h, err := readHead(buf, off)
		if err != nil {
			return off, err
		}
		pending--
		off = h.body
		remaining := uint64(len(buf) - off)
		switch h.kind {
		case mpStr, mpBin, mpExt:
			if h.n > remaining {
				return off, errMsgpackTruncated
			}
			off += int(h.n)
		case mpArray:
			if h.n > remaining {
				return off, errMsgpackTruncated
			}
			pending += h.n
		case mpMap:
			if h.n > remaining/2 {
				return off, errMsgpackTruncated
			}
			pending += 2 * h.n
		}
	}
	return off, nil
}

// mpString returns the string value of h, or false if h is not a string.
func mpString(buf []byte, h mpHead) (string, bool) {
	if h.kind != mpStr {
		return "", false
	}
	return string(buf[h.body : h.body+int(h.n)]), true
}

// mpEachPair calls fn for each key/value pair of the map h, in file order,
// without allocating; it stops at the first error fn returns.
func mpEachPair(buf []byte, h mpHead, fn func(k, v mpHead) error) error {
	if h.kind != mpMap {
		return fmt.Errorf("not a map: %v", h.kind)
	}
	return mpEach(buf, h.body, 2*h.n, func(hs [2]mpHead, i uint64) error {
		if i%2 == 0 {
			return nil
		}
		return fn(hs[0], hs[1])
	})
}

// mpEachElem calls fn for each element of the array h with its index.
func mpEachElem(buf []byte, h mpHead, fn func(i int, v mpHead) error) error {
	if h.kind != mpArray {
		return fmt.Errorf("not an array: %v", h.kind)
	}
	return mpEach(buf, h.body, h.n, func(hs [2]mpHead, i uint64) error {
		return fn(int(i), hs[1])
	})
}

// mpEach walks count consecutive values from off; fn sees the previous and
// the current head.
func mpEach(buf []byte, off int, count uint64, fn func(hs [2]mpHead, i uint64) error) error {
	var hs [2]mpHead
	for i := uint64(0); i < count; i++ {
		h, err := readHead(buf, off)
		if err != nil {
			return err
		}
		hs[0], hs[1] = hs[1], h
		if err := fn(hs, i); err != nil {
			return err
		}
		if off, err = mpSkip(buf, off); err != nil {
			return err
		}
	}
	return nil
}
