// Package mpack is a small, bounds-checked MessagePack reader over a byte
// slice, shared by the kpack TOC parser and the hostbin reference parser.
//
// kpack-lint reads MessagePack that others wrote and must report what it
// finds rather than fail on it. github.com/vmihailenco/msgpack/v5 does not
// fit: it allocates whatever length a hostile header declares, so a few bytes
// can ask for gigabytes; it recurses into nested values; and it gives no byte
// offsets, which problem reports need. This package decodes one value header
// at a time instead:
//
//   - bounded: no allocation is sized from a declared length, and every
//     length and element count is checked against the bytes that remain;
//   - offsets: every Head records where its value and its payload start;
//   - no recursion: Skip keeps a single counter of pending values, so
//     nesting depth cannot exhaust the stack.
package mpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Kind is the type of a MessagePack value.
type Kind uint8

// The kinds of MessagePack values.
const (
	Nil    Kind = iota
	Bool        // N is 1 for true, 0 for false
	Uint        // any integer format holding a value >= 0 (msgpack-c POSITIVE_INTEGER); N is the value
	NegInt      // any integer format holding a value < 0; the value is not decoded
	Float       // float32 or float64; the value is not decoded
	Str         // N is the length in bytes
	Bin         // N is the length in bytes
	Array       // N is the element count
	Map         // N is the pair count
	Ext         // fixext or ext; N is the data length, excluding the ext type byte
)

var kindNames = [...]string{"nil", "bool", "integer", "negative integer", "float", "string", "binary", "array", "map", "extension"}

// String names the kind for problem messages ("string", "negative integer").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Article names the kind with its article, for "X is <article>" in
// messages: "an integer", "a string", "nil".
func (k Kind) Article() string {
	name := k.String()
	switch {
	case name == "nil":
		return name
	case strings.ContainsRune("aeiou", rune(name[0])):
		return "an " + name
	}
	return "a " + name
}

// Head is the decoded header of one MessagePack value.
type Head struct {
	Kind Kind
	Off  int    // offset of the value's type byte in the buffer
	Body int    // offset of the payload: string bytes, ext data, first element, or the next value for scalars
	N    uint64 // Uint value, Bool value, Str/Bin/Ext length, or Array/Map count
}

// ErrTruncated reports a value that runs past the end of the buffer,
// including a container whose declared count cannot fit in what remains.
var ErrTruncated = errors.New("truncated MessagePack value")

// ReservedError reports the type byte 0xc1, which MessagePack never uses.
type ReservedError struct {
	Off  int  // offset of the type byte
	Byte byte // the type byte
}

func (e *ReservedError) Error() string {
	return fmt.Sprintf("reserved MessagePack type byte 0x%02x", e.Byte)
}

// lengthType describes a type byte followed by a big-endian length or count.
type lengthType struct {
	kind  Kind
	width int // bytes of the length field
}

var lengthTypes = map[byte]lengthType{
	0xc4: {Bin, 1}, 0xc5: {Bin, 2}, 0xc6: {Bin, 4},
	0xc7: {Ext, 1}, 0xc8: {Ext, 2}, 0xc9: {Ext, 4},
	0xd9: {Str, 1}, 0xda: {Str, 2}, 0xdb: {Str, 4},
	0xdc: {Array, 2}, 0xdd: {Array, 4},
	0xde: {Map, 2}, 0xdf: {Map, 4},
}

// ReadHead decodes the header of the value at off: its type byte and any
// length, count, integer or float bytes, and the ext type byte. It does not
// check that a Str, Bin or Ext payload or a container's elements fit in buf;
// Skip does.
//
// On ErrTruncated, the Head's Body is the offset of the header field that
// runs past the end of buf (off itself when off >= len(buf)). The other
// error is a *ReservedError.
func ReadHead(buf []byte, off int) (Head, error) {
	if off < 0 || off >= len(buf) {
		return Head{Off: off, Body: off}, ErrTruncated
	}
	b := buf[off]
	h := Head{Off: off, Body: off + 1}
	switch {
	case b <= 0x7f:
		h.Kind, h.N = Uint, uint64(b)
		return h, nil
	case b >= 0xe0:
		h.Kind = NegInt
		return h, nil
	case b <= 0x8f:
		h.Kind, h.N = Map, uint64(b&0x0f)
		return h, nil
	case b <= 0x9f:
		h.Kind, h.N = Array, uint64(b&0x0f)
		return h, nil
	case b <= 0xbf:
		h.Kind, h.N = Str, uint64(b&0x1f)
		return h, nil
	}
	return readTagged(buf, h, b)
}

// readTagged decodes the 0xc0..0xdf type bytes.
func readTagged(buf []byte, h Head, b byte) (Head, error) {
	switch b {
	case 0xc0:
		h.Kind = Nil
		return h, nil
	case 0xc2, 0xc3:
		h.Kind, h.N = Bool, uint64(b-0xc2)
		return h, nil
	case 0xcc, 0xcd, 0xce, 0xcf:
		h.Kind = Uint
		return readUint(buf, h, 1<<(b-0xcc))
	case 0xd0, 0xd1, 0xd2, 0xd3:
		return readInt(buf, h, 1<<(b-0xd0))
	case 0xca, 0xcb:
		h.Kind = Float
		return advance(buf, h, 4*int(b-0xc9))
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
		h.Kind, h.N = Ext, 1<<(b-0xd4)
		return advance(buf, h, 1) // the ext type byte
	}
	t, ok := lengthTypes[b]
	if !ok {
		return h, &ReservedError{Off: h.Off, Byte: b}
	}
	h.Kind = t.kind
	h, err := readUint(buf, h, t.width)
	if err == nil && t.kind == Ext {
		return advance(buf, h, 1)
	}
	return h, err
}

// advance moves h.Body past a field of width bytes, or leaves it at the
// field and returns ErrTruncated when the field runs past the end of buf.
func advance(buf []byte, h Head, width int) (Head, error) {
	if width > len(buf)-h.Body {
		return h, ErrTruncated
	}
	h.Body += width
	return h, nil
}

// readUint reads a big-endian unsigned integer of width bytes at h.Body into h.N.
func readUint(buf []byte, h Head, width int) (Head, error) {
	start := h.Body
	h, err := advance(buf, h, width)
	if err != nil {
		return h, err
	}
	p := buf[start:h.Body]
	switch width {
	case 1:
		h.N = uint64(p[0])
	case 2:
		h.N = uint64(binary.BigEndian.Uint16(p))
	case 4:
		h.N = uint64(binary.BigEndian.Uint32(p))
	default:
		h.N = binary.BigEndian.Uint64(p)
	}
	return h, nil
}

// readInt reads a signed integer; non-negative values are Uint as in msgpack-c.
func readInt(buf []byte, h Head, width int) (Head, error) {
	h, err := readUint(buf, h, width)
	if err != nil {
		return h, err
	}
	shift := 64 - 8*uint(width)
	h.Kind = Uint
	if int64(h.N<<shift)>>shift < 0 {
		h.Kind, h.N = NegInt, 0
	}
	return h, nil
}

// Skip returns the offset just past the value at off, checking that the
// whole value, nested values included, lies in buf. It is iterative.
//
// On error the offset is where the fault was found: the start of a value
// whose header is bad, or the payload of a value whose length or count
// does not fit in the bytes that remain.
func Skip(buf []byte, off int) (int, error) {
	pending := uint64(1)
	for pending > 0 {
		if next, more, ok := skipSmall(buf, off); ok {
			if next < 0 {
				return off + 1, ErrTruncated
			}
			off = next
			pending += more - 1
			continue
		}
		h, err := ReadHead(buf, off)
		if err != nil {
			return off, err
		}
		pending--
		off = h.Body
		remaining := uint64(len(buf) - off)
		switch h.Kind {
		case Str, Bin, Ext:
			if h.N > remaining {
				return off, ErrTruncated
			}
			off += int(h.N)
		case Array:
			if h.N > remaining {
				return off, ErrTruncated
			}
			pending += h.N
		case Map:
			if h.N > remaining/2 {
				return off, ErrTruncated
			}
			pending += 2 * h.N
		}
	}
	return off, nil
}

// End returns the offset just past the value whose head h ReadHead
// decoded from buf: past the payload of a scalar, string, binary or
// extension, and for an array or map past its last element (Skip). Use it
// on values Skip has checked; on others it may point past buf.
func End(buf []byte, h Head) int {
	switch h.Kind {
	case Str, Bin, Ext:
		return h.Body + int(h.N)
	case Array, Map:
		end, _ := Skip(buf, h.Off)
		return end
	}
	return h.Body
}

// skipSmall skips the value at off when its type byte alone says how
// (positive and negative fixint, nil, bools, fixstr, fixmap, fixarray:
// most of a TOC): next is the offset past it, -1 when a fixstr runs past
// buf or a fixmap or fixarray cannot fit, and more the values it holds.
// ok is false for the other types.
func skipSmall(buf []byte, off int) (next int, more uint64, ok bool) {
	if off < 0 || off >= len(buf) {
		return 0, 0, false
	}
	b := buf[off]
	rest := uint64(len(buf) - off - 1)
	switch {
	case b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3:
		return off + 1, 0, true
	case b >= 0xa0 && b <= 0xbf:
		if n := uint64(b & 0x1f); n <= rest {
			return off + 1 + int(n), 0, true
		}
	case b <= 0x8f:
		if n := uint64(b & 0x0f); n <= rest/2 {
			return off + 1, 2 * n, true
		}
	case b <= 0x9f:
		if n := uint64(b & 0x0f); n <= rest {
			return off + 1, n, true
		}
	default:
		return 0, 0, false
	}
	return -1, 0, true
}

// String returns the string h holds, or false if h is not a Str or its
// bytes run past the end of buf.
func String(buf []byte, h Head) (string, bool) {
	if h.Kind != Str || h.Body < 0 || h.Body > len(buf) || h.N > uint64(len(buf)-h.Body) {
		return "", false
	}
	return string(buf[h.Body : h.Body+int(h.N)]), true
}

// EachPair calls fn for each key/value pair of the map h, in buffer order;
// it stops at the first error fn returns or the first malformed value.
func EachPair(buf []byte, h Head, fn func(k, v Head) error) error {
	if h.Kind != Map {
		return fmt.Errorf("not a map: %v", h.Kind)
	}
	return each(buf, h.Body, 2*h.N, func(hs [2]Head, i uint64) error {
		if i%2 == 0 {
			return nil
		}
		return fn(hs[0], hs[1])
	})
}

// EachElem calls fn for each element of the array h with its index; it
// stops at the first error fn returns or the first malformed value.
func EachElem(buf []byte, h Head, fn func(i int, v Head) error) error {
	if h.Kind != Array {
		return fmt.Errorf("not an array: %v", h.Kind)
	}
	return each(buf, h.Body, h.N, func(hs [2]Head, i uint64) error {
		return fn(int(i), hs[1])
	})
}

// each walks count consecutive values from off; fn sees the previous and
// the current head.
func each(buf []byte, off int, count uint64, fn func(hs [2]Head, i uint64) error) error {
	var hs [2]Head
	for i := uint64(0); i < count; i++ {
		h, err := ReadHead(buf, off)
		if err != nil {
			return err
		}
		hs[0], hs[1] = hs[1], h
		if err := fn(hs, i); err != nil {
			return err
		}
		if off, err = Skip(buf, off); err != nil {
			return err
		}
	}
	return nil
}
