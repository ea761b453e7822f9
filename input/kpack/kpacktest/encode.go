package kpacktest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
)

// writerKeyOrder is the key order of the Python writer's dicts.
var writerKeyOrder = []string{
	"format_version", "group_name", "gfx_arch_family", "gfx_arches", "toc",
	"compression_scheme", "blobs", "zstd_offset", "zstd_size",
	"type", "ordinal", "original_size", "metadata", "offset", "size",
}

// keyRanks orders writer keys first, then kernel keys and arches in
// first-seen order; other keys sort after them alphabetically.
func keyRanks(s Spec) map[string]int {
	rank := map[string]int{}
	next := 0
	add := func(k string) {
		if _, ok := rank[k]; !ok {
			rank[k] = next
			next++
		}
	}
	for _, k := range writerKeyOrder {
		add(k)
	}
	for i, k := range s.Kernels {
		add(k.Key)
		rank[k.Key+"\x00"+k.Arch] = next + i // per-kernel insertion order
	}
	return rank
}

// encoder writes MessagePack like msgpack-python (smallest encodings,
// str8 allowed, bin for []byte).
type encoder struct {
	buf  bytes.Buffer
	rank map[string]int
}

func (e *encoder) value(v any) { e.valueIn("", v) }

// valueIn encodes v, the value of key parent in its enclosing map.
func (e *encoder) valueIn(parent string, v any) {
	switch x := v.(type) {
	case nil:
		e.buf.WriteByte(0xc0)
	case bool:
		e.buf.WriteByte(map[bool]byte{false: 0xc2, true: 0xc3}[x])
	case RawMsgpack:
		e.buf.Write(x)
	case string:
		e.str(x)
	case []byte:
		e.head(len(x), 0, 0, 0xc4, 0xc5, 0xc6)
		e.buf.Write(x)
	case float64:
		e.buf.WriteByte(0xcb)
		_ = binary.Write(&e.buf, binary.BigEndian, math.Float64bits(x))
	case []any:
		e.array(parent, x)
	case []string:
		e.array(parent, toAny(x))
	case map[string]any:
		e.mapping(parent, x)
	default:
		e.integer(v)
	}
}

func (e *encoder) integer(v any) {
	switch x := v.(type) {
	case int:
		e.int64(int64(x))
	case int64:
		e.int64(x)
	case int32:
		e.int64(int64(x))
	case uint32:
		e.uint64(uint64(x))
	case uint64:
		e.uint64(x)
	case uint:
		e.uint64(uint64(x))
	default:
		panic(fmt.Sprintf("kpacktest: cannot encode %T", v))
	}
}

func (e *encoder) int64(x int64) {
	if x >= 0 {
		e.uint64(uint64(x))
		return
	}
	switch {
	case x >= -32:
		e.buf.WriteByte(byte(int8(x)))
	case x >= math.MinInt8:
		e.buf.Write([]byte{0xd0, byte(int8(x))})
	case x >= math.MinInt16:
		e.buf.WriteByte(0xd1)
		_ = binary.Write(&e.buf, binary.BigEndian, int16(x))
	case x >= math.MinInt32:
		e.buf.WriteByte(0xd2)
		_ = binary.Write(&e.buf, binary.BigEndian, int32(x))
	default:
		e.buf.WriteByte(0xd3)
		_ = binary.Write(&e.buf, binary.BigEndian, x)
	}
}

func (e *encoder) uint64(x uint64) {
	switch {
	case x <= 0x7f:
		e.buf.WriteByte(byte(x))
	case x <= math.MaxUint8:
		e.buf.Write([]byte{0xcc, byte(x)})
	case x <= math.MaxUint16:
		e.buf.WriteByte(0xcd)
		_ = binary.Write(&e.buf, binary.BigEndian, uint16(x))
	case x <= math.MaxUint32:
		e.buf.WriteByte(0xce)
		_ = binary.Write(&e.buf, binary.BigEndian, uint32(x))
	default:
		e.buf.WriteByte(0xcf)
		_ = binary.Write(&e.buf, binary.BigEndian, x)
	}
}

// head writes a length header: fix (if fixMax > 0 and n < fixMax), or the
// 8/16/32-bit forms (a zero byte code skips that form).
func (e *encoder) head(n int, fix byte, fixMax int, c8, c16, c32 byte) {
	switch {
	case n < fixMax:
		e.buf.WriteByte(fix | byte(n))
	case c8 != 0 && n <= math.MaxUint8:
		e.buf.Write([]byte{c8, byte(n)})
	case n <= math.MaxUint16:
		e.buf.WriteByte(c16)
		_ = binary.Write(&e.buf, binary.BigEndian, uint16(n))
	default:
		e.buf.WriteByte(c32)
		_ = binary.Write(&e.buf, binary.BigEndian, uint32(n))
	}
}

func (e *encoder) str(s string) {
	e.head(len(s), 0xa0, 32, 0xd9, 0xda, 0xdb)
	e.buf.WriteString(s)
}

func (e *encoder) array(parent string, xs []any) {
	e.head(len(xs), 0x90, 16, 0, 0xdc, 0xdd)
	for _, x := range xs {
		e.valueIn(parent, x)
	}
}

func (e *encoder) mapping(parent string, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return e.less(parent, keys[i], keys[j]) })
	e.head(len(keys), 0x80, 16, 0, 0xde, 0xdf)
	for _, k := range keys {
		e.str(k)
		e.valueIn(k, m[k])
	}
}

// rankOf returns the order of key k inside the map stored under parent.
func (e *encoder) rankOf(parent, k string) (int, bool) {
	if r, ok := e.rank[parent+"\x00"+k]; ok {
		return r, true
	}
	r, ok := e.rank[k]
	return r, ok
}

func (e *encoder) less(parent, a, b string) bool {
	ra, oka := e.rankOf(parent, a)
	rb, okb := e.rankOf(parent, b)
	switch {
	case oka && okb:
		return ra < rb
	case oka != okb:
		return oka
	}
	return a < b
}
