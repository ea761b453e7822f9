package mpack_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/rocm-tools/kpack-lint/internal/util/mpack"
)

// cat joins byte slices and single bytes.
func cat(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch v := p.(type) {
		case int:
			b = append(b, byte(v))
		case string:
			b = append(b, v...)
		case []byte:
			b = append(b, v...)
		default:
			panic(fmt.Sprintf("cat: %T", p))
		}
	}
	return b
}

var z = make([]byte, 300) // payload filler

// headCases covers every type tag. body and n are the expected Head.Body
// (relative to the value) and Head.N; size is the whole value's length.
var headCases = []struct {
	name string
	in   []byte
	kind mpack.Kind
	body int
	n    uint64
	size int
}{
	{"positive fixint 0", cat(0x00), mpack.Uint, 1, 0, 1},
	{"positive fixint 127", cat(0x7f), mpack.Uint, 1, 127, 1},
	{"fixmap 0", cat(0x80), mpack.Map, 1, 0, 1},
	{"fixmap 15", cat(0x8f, z[:30]), mpack.Map, 1, 15, 31},
	{"fixarray 0", cat(0x90), mpack.Array, 1, 0, 1},
	{"fixarray 15", cat(0x9f, z[:15]), mpack.Array, 1, 15, 16},
	{"fixstr 0", cat(0xa0), mpack.Str, 1, 0, 1},
	{"fixstr 31", cat(0xbf, z[:31]), mpack.Str, 1, 31, 32},
	{"nil", cat(0xc0), mpack.Nil, 1, 0, 1},
	{"false", cat(0xc2), mpack.Bool, 1, 0, 1},
	{"true", cat(0xc3), mpack.Bool, 1, 1, 1},
	{"bin8", cat(0xc4, 3, "abc"), mpack.Bin, 2, 3, 5},
	{"bin16", cat(0xc5, 0, 3, "abc"), mpack.Bin, 3, 3, 6},
	{"bin32", cat(0xc6, 0, 0, 0, 3, "abc"), mpack.Bin, 5, 3, 8},
	{"ext8", cat(0xc7, 3, 0x05, "abc"), mpack.Ext, 3, 3, 6},
	{"ext16", cat(0xc8, 0, 3, 0x05, "abc"), mpack.Ext, 4, 3, 7},
	{"ext32", cat(0xc9, 0, 0, 0, 3, 0xff, "abc"), mpack.Ext, 6, 3, 9},
	{"float32", cat(0xca, z[:4]), mpack.Float, 5, 0, 5},
	{"float64", cat(0xcb, z[:8]), mpack.Float, 9, 0, 9},
	{"uint8", cat(0xcc, 0xff), mpack.Uint, 2, 0xff, 2},
	{"uint16", cat(0xcd, 0x12, 0x34), mpack.Uint, 3, 0x1234, 3},
	{"uint32", cat(0xce, 0x12, 0x34, 0x56, 0x78), mpack.Uint, 5, 0x12345678, 5},
	{"uint64", cat(0xcf, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88), mpack.Uint, 9, 0xffeeddccbbaa9988, 9},
	{"int8 positive", cat(0xd0, 0x7f), mpack.Uint, 2, 0x7f, 2},
	{"int8 negative", cat(0xd0, 0x80), mpack.NegInt, 2, 0, 2},
	{"int16 positive", cat(0xd1, 0x12, 0x34), mpack.Uint, 3, 0x1234, 3},
	{"int16 negative", cat(0xd1, 0xff, 0xff), mpack.NegInt, 3, 0, 3},
	{"int32 positive", cat(0xd2, 0, 1, 0, 0), mpack.Uint, 5, 0x10000, 5},
	{"int32 negative", cat(0xd2, 0x80, 0, 0, 0), mpack.NegInt, 5, 0, 5},
	{"int64 positive", cat(0xd3, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), mpack.Uint, 9, 1<<63 - 1, 9},
	{"int64 negative", cat(0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe), mpack.NegInt, 9, 0, 9},
	{"fixext1", cat(0xd4, 0x01, "a"), mpack.Ext, 2, 1, 3},
	{"fixext2", cat(0xd5, 0x01, "ab"), mpack.Ext, 2, 2, 4},
	{"fixext4", cat(0xd6, 0xff, z[:4]), mpack.Ext, 2, 4, 6},
	{"fixext8", cat(0xd7, 0x01, z[:8]), mpack.Ext, 2, 8, 10},
	{"fixext16", cat(0xd8, 0x01, z[:16]), mpack.Ext, 2, 16, 18},
	{"str8", cat(0xd9, 3, "abc"), mpack.Str, 2, 3, 5},
	{"str16", cat(0xda, 1, 0, z[:256]), mpack.Str, 3, 256, 259},
	{"str32", cat(0xdb, 0, 0, 0, 3, "abc"), mpack.Str, 5, 3, 8},
	{"array16", cat(0xdc, 0, 2, 0xc0, 0xc3), mpack.Array, 3, 2, 5},
	{"array32", cat(0xdd, 0, 0, 0, 2, 0xc0, 0xc3), mpack.Array, 5, 2, 7},
	{"map16", cat(0xde, 0, 1, 0xa1, "k", 0x01), mpack.Map, 3, 1, 6},
	{"map32", cat(0xdf, 0, 0, 0, 1, 0xa1, "k", 0x01), mpack.Map, 5, 1, 8},
	{"negative fixint -32", cat(0xe0), mpack.NegInt, 1, 0, 1},
	{"negative fixint -1", cat(0xff), mpack.NegInt, 1, 0, 1},
}

func TestReadHeadEveryTag(t *testing.T) {
	for _, tc := range headCases {
		t.Run(tc.name, func(t *testing.T) {
			// At a non-zero offset, with a trailing byte that must be ignored.
			buf := cat(0xc0, 0xc0, tc.in, 0xc1)
			h, err := mpack.ReadHead(buf, 2)
			want := mpack.Head{Kind: tc.kind, Off: 2, Body: 2 + tc.body, N: tc.n}
			if err != nil || h != want {
				t.Fatalf("ReadHead = %+v, %v; want %+v", h, err, want)
			}
			if end, err := mpack.Skip(buf, 2); err != nil || end != 2+tc.size {
				t.Fatalf("Skip = %d, %v; want %d", end, err, 2+tc.size)
			}
			if tc.size != len(tc.in) {
				t.Fatalf("case size %d, input %d bytes", tc.size, len(tc.in))
			}
			if _, err := mpack.Skip(buf[:len(buf)-2], 2); !errors.Is(err, mpack.ErrTruncated) {
				t.Fatalf("Skip of a value cut by one byte: %v", err)
			}
		})
	}
}

// Every type byte decodes or is reserved; only 0xc1 is reserved.
func TestAllTypeBytes(t *testing.T) {
	seen := map[mpack.Kind]bool{}
	for b := range 256 {
		buf := cat(b, z[:20])
		h, err := mpack.ReadHead(buf, 0)
		var re *mpack.ReservedError
		if b == 0xc1 {
			if !errors.As(err, &re) || re.Off != 0 || re.Byte != 0xc1 || err.Error() != "reserved MessagePack type byte 0xc1" {
				t.Errorf("0xc1: %+v, %v", h, err)
			}
			if end, err := mpack.Skip(buf, 0); end != 0 || !errors.As(err, &re) {
				t.Errorf("Skip 0xc1 = %d, %v", end, err)
			}
			continue
		}
		if err != nil || h.Off != 0 || h.Body < 1 || h.Body > 10 {
			t.Errorf("0x%02x: %+v, %v", b, h, err)
		}
		seen[h.Kind] = true
	}
	if len(seen) != 10 {
		t.Errorf("kinds seen: %v", seen)
	}
}

func TestKindString(t *testing.T) {
	names := map[string]bool{}
	for k := mpack.Nil; k <= mpack.Ext; k++ {
		names[k.String()] = true
	}
	if len(names) != 10 || mpack.Str.String() != "string" || mpack.NegInt.String() != "negative integer" ||
		mpack.Kind(99).String() != "Kind(99)" {
		t.Errorf("names %v", names)
	}
}

// sample holds every kind, nested.
var sample = cat(0x89,
	0xa3, "nil", 0xc0,
	0xa4, "bool", 0x92, 0xc2, 0xc3,
	0xa3, "int", 0x96, 0x05, 0xe0, 0xcd, 1, 0, 0xd0, 0x80, 0xcf, z[:8], 0xd3, z[:8],
	0xa5, "float", 0x92, 0xca, z[:4], 0xcb, z[:8],
	0xd9, 3, "str", 0x93, 0xa0, 0xda, 0, 2, "hi", 0xdb, 0, 0, 0, 1, "x",
	0xc4, 1, 0x62, 0x93, 0xc4, 0, 0xc5, 0, 1, "b", 0xc6, 0, 0, 0, 2, "bb",
	0xa3, "ext", 0x98, 0xd4, 1, "a", 0xd5, 1, "ab", 0xd6, 1, z[:4], 0xd7, 1, z[:8], 0xd8, 1, z[:16],
	0xc7, 0, 7, 0xc8, 0, 1, 7, "e", 0xc9, 0, 0, 0, 2, 7, "ee",
	0xdc, 0, 1, 0xdd, 0, 0, 0, 1, 0xde, 0, 1, 0x01, 0xdf, 0, 0, 0, 1, 0x02, 0x03,
	0x80, 0x90,
	0x81, 0x91, 0x81, 0xa0, 0xc0, 0x92, 0x80, 0x90,
)

func TestSampleDecodesLikeVmihailenco(t *testing.T) {
	end, err := mpack.Skip(sample, 0)
	if err != nil || end != len(sample) {
		t.Fatalf("Skip = %d, %v; want %d", end, err, len(sample))
	}
	checkOracle(t, sample, 0, end)
	kinds := map[mpack.Kind]bool{}
	if err := walk(sample, 0, func(h mpack.Head) { kinds[h.Kind] = true }); err != nil || len(kinds) != 10 {
		t.Fatalf("walk: %v, kinds %v", err, kinds)
	}
}

// Cut anywhere, the sample is truncated, never reserved or a panic, and
// the error offset lies within the input.
func TestTruncatedAtEveryLength(t *testing.T) {
	for n := range len(sample) {
		b := sample[:n]
		end, err := mpack.Skip(b, 0)
		if !errors.Is(err, mpack.ErrTruncated) || end < 0 || end > n {
			t.Fatalf("Skip(sample[:%d]) = %d, %v", n, end, err)
		}
		var count int
		if err := walk(b, 0, func(mpack.Head) { count++ }); !errors.Is(err, mpack.ErrTruncated) {
			t.Fatalf("walk(sample[:%d]) = %v after %d values", n, err, count)
		}
	}
}

// A cut header reports the field that runs short in Head.Body.
func TestReadHeadTruncatedBody(t *testing.T) {
	tests := []struct {
		in   []byte
		body int
	}{
		{nil, 0},
		{cat(0xcd, 1), 1},
		{cat(0xcb, z[:7]), 1},
		{cat(0xd3), 1},
		{cat(0xd4), 1},              // fixext type byte
		{cat(0xd9), 1},              // str8 length
		{cat(0xdb, 0, 0), 1},        // str32 length
		{cat(0xc7, 3), 2},           // ext8 type byte
		{cat(0xc9, 0, 0, 0, 3), 5},  // ext32 type byte
		{cat(0xdf, 0, 0, 0), 1},     // map32 count
		{cat(0xdd, 0, 0, 0, 9), -1}, // a whole header: count not checked
	}
	for _, tc := range tests {
		h, err := mpack.ReadHead(tc.in, 0)
		if tc.body < 0 {
			if err != nil {
				t.Errorf("% x: %v", tc.in, err)
			}
			continue
		}
		if !errors.Is(err, mpack.ErrTruncated) || h.Body != tc.body || h.Off != 0 {
			t.Errorf("% x: %+v, %v; want Body %d", tc.in, h, err, tc.body)
		}
	}
	if _, err := mpack.ReadHead(cat(0xc0), -1); !errors.Is(err, mpack.ErrTruncated) {
		t.Errorf("negative offset: %v", err)
	}
}

// Declared lengths and counts far beyond the input fail at once, without
// allocating.
func TestHugeDeclaredLengths(t *testing.T) {
	ff := cat(0xff, 0xff, 0xff, 0xff)
	tests := []struct {
		name string
		in   []byte
		at   int
	}{
		{"str32", cat(0xdb, ff, "abc"), 5},
		{"bin32", cat(0xc6, ff, "abc"), 5},
		{"ext32", cat(0xc9, ff, 1, "abc"), 6},
		{"ext16", cat(0xc8, 0xff, 0xff, 1, "abc"), 4},
		{"array32", cat(0xdd, ff, 0xc0, 0xc0), 5},
		{"map32", cat(0xdf, ff, 0xc0, 0xc0), 5},
		{"array16", cat(0xdc, 0xff, 0xff, 0xc0), 3},
		{"map count over half the rest", cat(0x82, 0xc0, 0xc0, 0xc0), 1},
		{"nested array32", cat(0x91, 0xdd, ff), 6},
		{"map32 of array32", cat(0xdf, 0, 0, 0, 1, 0xc0, 0xdd, ff, 0xc0), 11},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var end int
			var err error
			allocs := testing.AllocsPerRun(10, func() { end, err = mpack.Skip(tc.in, 0) })
			if !errors.Is(err, mpack.ErrTruncated) || end != tc.at {
				t.Errorf("Skip = %d, %v; want %d, truncated", end, err, tc.at)
			}
			if allocs != 0 {
				t.Errorf("Skip allocated %v times", allocs)
			}
			h, _ := mpack.ReadHead(tc.in, 0)
			if s, ok := mpack.String(tc.in, h); ok || s != "" {
				t.Errorf("String of an overlong value = %q, %v", s, ok)
			}
		})
	}
}

// A million nested containers are skipped without recursion.
func TestDeepNesting(t *testing.T) {
	const depth = 1 << 20
	for _, open := range [][]byte{{0x91}, {0x81, 0xc0}, {0xdc, 0, 1}, {0xdf, 0, 0, 0, 1, 0xa0}} {
		b := append(bytes.Repeat(open, depth), 0xc0)
		if end, err := mpack.Skip(b, 0); err != nil || end != len(b) {
			t.Fatalf("% x deep: Skip = %d, %v; want %d", open, end, err, len(b))
		}
		if _, err := mpack.Skip(b[:len(b)-1], 0); !errors.Is(err, mpack.ErrTruncated) {
			t.Fatalf("% x deep, cut: %v", open, err)
		}
		h, _ := mpack.ReadHead(b, 0)
		visited := 0
		visit := func(v mpack.Head) error { visited++; return nil }
		var err error
		if h.Kind == mpack.Map {
			err = mpack.EachPair(b, h, func(k, v mpack.Head) error { return visit(v) })
		} else {
			err = mpack.EachElem(b, h, func(i int, v mpack.Head) error { return visit(v) })
		}
		if err != nil || visited != 1 {
			t.Fatalf("% x deep: each = %v, %d visits", open, err, visited)
		}
	}
}

func TestEachPairAndElem(t *testing.T) {
	b := cat(0x83, 0xa1, "a", 0x01, 0x02, 0x92, 0xc0, 0xc3, 0xa1, "a", 0xa2, "xy", 0xff)
	h, _ := mpack.ReadHead(b, 0)
	var got []string
	err := mpack.EachPair(b, h, func(k, v mpack.Head) error {
		ks, _ := mpack.String(b, k)
		got = append(got, fmt.Sprintf("%s@%d:%v@%d", ks, k.Off, v.Kind, v.Off))
		return nil
	})
	want := []string{"a@1:integer@3", "@4:array@5", "a@8:string@10"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("EachPair = %v, %v; want %v", got, err, want)
	}
	stop := errors.New("stop")
	calls := 0
	if err := mpack.EachPair(b, h, func(k, v mpack.Head) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("EachPair stop: %v after %d calls", err, calls)
	}
	if err := mpack.EachElem(b, h, nil); err == nil || err.Error() != "not an array: map" {
		t.Errorf("EachElem on a map: %v", err)
	}
	arr, _ := mpack.ReadHead(b, 5)
	var idx []int
	if err := mpack.EachElem(b, arr, func(i int, v mpack.Head) error { idx = append(idx, i, v.Off); return nil }); err != nil ||
		!slices.Equal(idx, []int{0, 6, 1, 7}) {
		t.Errorf("EachElem = %v, %v", idx, err)
	}
	if err := mpack.EachPair(b, arr, nil); err == nil || err.Error() != "not a map: array" {
		t.Errorf("EachPair on an array: %v", err)
	}
	// A malformed element stops the walk with its error.
	bad := cat(0x93, 0x01, 0xc1, 0x02)
	arr, _ = mpack.ReadHead(bad, 0)
	calls = 0
	var re *mpack.ReservedError
	if err := mpack.EachElem(bad, arr, func(int, mpack.Head) error { calls++; return nil }); !errors.As(err, &re) || re.Off != 2 || calls != 1 {
		t.Errorf("EachElem over 0xc1: %v after %d calls", err, calls)
	}
	cut := cat(0x82, 0xa1, "k", 0xa5, "ab")
	m, _ := mpack.ReadHead(cut, 0)
	if err := mpack.EachPair(cut, m, func(k, v mpack.Head) error { return nil }); !errors.Is(err, mpack.ErrTruncated) {
		t.Errorf("EachPair over a cut map: %v", err)
	}
}

func TestString(t *testing.T) {
	b := cat(0xa3, "abc", 0xd9, 2, "de", 0xc4, 1, "f")
	for _, tc := range []struct {
		off  int
		want string
		ok   bool
	}{{0, "abc", true}, {4, "de", true}, {8, "", false}} {
		h, _ := mpack.ReadHead(b, tc.off)
		if s, ok := mpack.String(b, h); s != tc.want || ok != tc.ok {
			t.Errorf("String at %d = %q, %v", tc.off, s, ok)
		}
	}
	if s, ok := mpack.String(b, mpack.Head{Kind: mpack.Str, Body: 100}); ok || s != "" {
		t.Errorf("String past the buffer = %q, %v", s, ok)
	}
	if s, ok := mpack.String(b, mpack.Head{Kind: mpack.Str, Body: -1, N: 1}); ok || s != "" {
		t.Errorf("String before the buffer = %q, %v", s, ok)
	}
	if allocs := testing.AllocsPerRun(10, func() { _, _ = mpack.ReadHead(b, 4) }); allocs != 0 {
		t.Errorf("ReadHead allocated %v times", allocs)
	}
}

// walk visits every value from off depth-first using only the exported API,
// as the TOC parser does.
func walk(b []byte, off int, fn func(mpack.Head)) error {
	if _, err := mpack.Skip(b, off); err != nil {
		return err
	}
	h, err := mpack.ReadHead(b, off)
	if err != nil {
		return err
	}
	fn(h)
	switch h.Kind {
	case mpack.Map:
		return mpack.EachPair(b, h, func(k, v mpack.Head) error {
			if err := walk(b, k.Off, fn); err != nil {
				return err
			}
			return walk(b, v.Off, fn)
		})
	case mpack.Array:
		return mpack.EachElem(b, h, func(_ int, v mpack.Head) error { return walk(b, v.Off, fn) })
	}
	return nil
}

// checkOracle checks that vmihailenco/msgpack skips b[off:end] exactly. It
// is only safe once Skip has bounded every declared length.
func checkOracle(t testing.TB, b []byte, off, end int) {
	t.Helper()
	r := bytes.NewReader(b[off:])
	if err := msgpack.NewDecoder(r).Skip(); err != nil {
		t.Fatalf("vmihailenco Skip of % x: %v", b[off:end], err)
	}
	if got := len(b) - r.Len(); got != end {
		t.Fatalf("vmihailenco skipped to %d, Skip to %d", got, end)
	}
}

func FuzzSkip(f *testing.F) {
	f.Add(sample, 0)
	f.Add(sample[:40], 1)
	f.Add(cat(0x91, 0x91, 0x91, 0xc0), 0)
	f.Add(cat(0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0), 0)
	for _, tc := range headCases {
		f.Add(tc.in, 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, off int) {
		if off < 0 || off > len(b) {
			off = 0
		}
		end, err := mpack.Skip(b, off)
		h, herr := mpack.ReadHead(b, off)
		if err != nil {
			var re *mpack.ReservedError
			if !errors.Is(err, mpack.ErrTruncated) && !errors.As(err, &re) {
				t.Fatalf("unexpected error %T %v", err, err)
			}
			if end < off || end > len(b) {
				t.Fatalf("error offset %d outside [%d, %d]", end, off, len(b))
			}
			if herr != nil && (h.Body < off || h.Body > len(b)) && !errors.As(herr, &re) {
				t.Fatalf("truncated head Body %d outside [%d, %d]", h.Body, off, len(b))
			}
			return
		}
		if end <= off || end > len(b) || herr != nil || h.Off != off || h.Body > end {
			t.Fatalf("Skip = %d, head %+v, %v", end, h, herr)
		}
		// The value alone skips the same; one byte less is truncated.
		if e2, err := mpack.Skip(b[:end], off); e2 != end || err != nil {
			t.Fatalf("Skip(b[:%d]) = %d, %v", end, e2, err)
		}
		if _, err := mpack.Skip(b[:end-1], off); !errors.Is(err, mpack.ErrTruncated) {
			t.Fatalf("Skip(b[:%d]) = %v", end-1, err)
		}
		if s, ok := mpack.String(b, h); ok != (h.Kind == mpack.Str) || len(s) != int(min(h.N, uint64(len(b)))) && ok {
			t.Fatalf("String = %q, %v for %+v", s, ok, h)
		}
		if depth(b[off:end]) < 1000 {
			checkOracle(t, b, off, end)
		}
		last := off
		if err := walk(b, off, func(v mpack.Head) {
			if v.Off < last || v.Off >= end {
				t.Fatalf("value at %d after %d, outside [%d, %d)", v.Off, last, off, end)
			}
			last = v.Off
		}); err != nil && !strings.Contains(err.Error(), "not a") {
			t.Fatalf("walk: %v", err)
		}
	})
}

// depth bounds the nesting of b (the oracle recurses).
func depth(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xe0 == 0x80 || c >= 0xdc && c <= 0xdf {
			n++
		}
	}
	return n
}

// TestEnd: End agrees with Skip on every value of a sample (scalars,
// strings, binary, extensions, nested containers).
func TestEnd(t *testing.T) {
	buf, err := msgpack.Marshal(map[string]any{"a": 1, "s": "text", "b": []byte{1, 2}, "n": nil, "f": 1.5,
		"m": map[string]any{"x": []any{1, "y", map[string]any{}}}, "neg": -3})
	if err != nil {
		t.Fatal(err)
	}
	buf = append(buf, cat(0xd6, 1, "abcd", 0xc7, 2, 5, "xy")...) // fixext 4, ext 8 of 2 bytes
	for off := 0; off < len(buf); {
		h, err := mpack.ReadHead(buf, off)
		if err != nil {
			t.Fatalf("ReadHead at %d: %v", off, err)
		}
		want, err := mpack.Skip(buf, off)
		if err != nil {
			t.Fatal(err)
		}
		if got := mpack.End(buf, h); got != want {
			t.Errorf("End of %v at %d = %d, Skip %d", h.Kind, off, got, want)
		}
		off = h.Body // visit nested values too
		if h.Kind == mpack.Str || h.Kind == mpack.Bin || h.Kind == mpack.Ext {
			off += int(h.N)
		}
	}
}
