package hostbin

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A small bounds-checked MessagePack reader over a byte slice. The reference
// is a few dozen bytes, and a general decoder would allocate whatever a
// hostile length header asks for; this one only slices its input and skips
// nested values without recursion.

// mpKind is the shape of a MessagePack value as the reference parser sees it.
type mpKind int

const (
	mpOther mpKind = iota // nil, bool, numbers, bin, ext
	mpStr
	mpArray
	mpMap
)

// String names the kind for problem messages.
func (k mpKind) String() string {
	return [...]string{"scalar", "string", "array", "map"}[k]
}

// mpValue is a decoded value header: the string bytes for mpStr, the element
// (array) or pair (map) count for containers.
type mpValue struct {
	kind mpKind
	str  []byte
	n    uint64
}

var errTruncated = errors.New("truncated MessagePack data")

type mpReader struct {
	b   []byte
	pos int
}

// take consumes n bytes.
func (r *mpReader) take(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)-r.pos) {
		return nil, errTruncated
	}
	s := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return s, nil
}

// uint reads a big-endian unsigned integer of size bytes (1, 2 or 4).
func (r *mpReader) uint(size int) (uint64, error) {
	b, err := r.take(uint64(size))
	if err != nil {
		return 0, err
	}
	switch size {
	case 1:
		return uint64(b[0]), nil
	case 2:
		return uint64(binary.BigEndian.Uint16(b)), nil
	}
	return uint64(binary.BigEndian.Uint32(b)), nil
}

// mpFixedSize maps scalar codes in 0xc0..0xdf to their payload size in bytes.
var mpFixedSize = map[byte]uint64{
	0xc0: 0, 0xc2: 0, 0xc3: 0, // nil, false, true
	0xca: 4, 0xcb: 8, // float32, float64
	0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, // uint8..64
	0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8, // int8..64
	0xd4: 2, 0xd5: 3, 0xd6: 5, 0xd7: 9, 0xd8: 17, // fixext 1..16 plus type byte
}

// lenCode describes a code followed by a length field.
type lenCode struct {
	kind  mpKind
	width int    // bytes of the length field
	extra uint64 // payload bytes beyond the length (ext type byte)
}

var mpLenCodes = map[byte]lenCode{
	0xc4: {mpOther, 1, 0}, 0xc5: {mpOther, 2, 0}, 0xc6: {mpOther, 4, 0}, // bin
	0xc7: {mpOther, 1, 1}, 0xc8: {mpOther, 2, 1}, 0xc9: {mpOther, 4, 1}, // ext
	0xd9: {mpStr, 1, 0}, 0xda: {mpStr, 2, 0}, 0xdb: {mpStr, 4, 0},
	0xdc: {mpArray, 2, 0}, 0xdd: {mpArray, 4, 0},
	0xde: {mpMap, 2, 0}, 0xdf: {mpMap, 4, 0},
}

// next reads one value header. Scalar, string, bin and ext payloads are
// consumed; container elements are not.
func (r *mpReader) next() (mpValue, error) {
	cb, err := r.take(1)
	if err != nil {
		return mpValue{}, err
	}
	c := cb[0]
	switch {
	case c <= 0x7f || c >= 0xe0:
		return mpValue{kind: mpOther}, nil
	case c <= 0x8f:
		return mpValue{kind: mpMap, n: uint64(c & 0x0f)}, nil
	case c <= 0x9f:
		return mpValue{kind: mpArray, n: uint64(c & 0x0f)}, nil
	case c <= 0xbf:
		return r.payload(mpStr, uint64(c&0x1f))
	}
	if n, ok := mpFixedSize[c]; ok {
		return r.payload(mpOther, n)
	}
	if lc, ok := mpLenCodes[c]; ok {
		return r.lengthPrefixed(lc)
	}
	return mpValue{}, fmt.Errorf("reserved MessagePack code %#02x at byte %d", c, r.pos-1)
}

func (r *mpReader) lengthPrefixed(lc lenCode) (mpValue, error) {
	n, err := r.uint(lc.width)
	if err != nil {
		return mpValue{}, err
	}
	if lc.kind == mpArray || lc.kind == mpMap {
		return mpValue{kind: lc.kind, n: n}, nil
	}
	return r.payload(lc.kind, n+lc.extra)
}

func (r *mpReader) payload(kind mpKind, n uint64) (mpValue, error) {
	b, err := r.take(n)
	if err != nil {
		return mpValue{}, err
	}
	return mpValue{kind: kind, str: b}, nil
}

// skipChildren consumes the elements of a container whose header v was just
// read, iteratively. Every element takes at least one byte, so a count
// larger than the remaining input fails at once.
func (r *mpReader) skipChildren(v mpValue) error {
	pending := children(v)
	for pending > 0 {
		if pending > uint64(len(r.b)-r.pos) {
			return errTruncated
		}
		c, err := r.next()
		if err != nil {
			return err
		}
		pending += children(c) - 1
	}
	return nil
}

// children returns how many values follow a container header.
func children(v mpValue) uint64 {
	switch v.kind {
	case mpArray:
		return v.n
	case mpMap:
		return 2 * v.n
	}
	return 0
}
