// Package kpacktest builds .kpack archives in code for tests. The byte layout
// matches the upstream rocm-kpack Python writer (python/rocm_kpack/kpack.py):
// a 16-byte header padded with zeros to 64 bytes, the blob data from offset
// 64, then the MessagePack TOC, with the writer's key order.
package kpacktest

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rocm-tools/kpack-lint/input/kpack"
)

// Kernel is one code object: Key is the TOC kernel key ("<name>#<co_index>"),
// Arch the target ID it is filed under, Data its bytes.
type Kernel struct {
	Key, Arch string
	Data      []byte
}

// Spec describes an archive. Group and Family fill group_name and
// gfx_arch_family. Arches is gfx_arches; nil derives it from Kernels in
// first-seen order (an empty non-nil slice writes an empty array). Scheme is
// kpack.SchemeNone (also when "") or kpack.SchemeZstd. Kernels get ordinals
// in slice order, as the writer assigns them. Mutate, if set, edits the TOC
// (a map[string]any of map[string]any / []any / scalars) before encoding;
// it may store RawMsgpack values to write arbitrary bytes.
type Spec struct {
	Group, Family string
	Arches        []string
	Scheme        string
	Kernels       []Kernel
	Mutate        func(toc map[string]any)
}

// RawMsgpack is written verbatim into the TOC in place of an encoded value.
type RawMsgpack []byte

// Build returns the archive bytes for s. It panics on programmer error
// (duplicate key/arch, unknown scheme, unencodable Mutate value).
func Build(s Spec) []byte {
	blob, storage := buildBlob(s)
	toc := buildTOC(s)
	for k, v := range storage {
		toc[k] = v
	}
	if off, ok := toc["blobs"].([]any); ok {
		for _, b := range off {
			m := b.(map[string]any)
			m["offset"] = m["offset"].(int) + kpack.HeaderSize
		}
	}
	if s.Mutate != nil {
		s.Mutate(toc)
	}
	enc := &encoder{rank: keyRanks(s)}
	enc.value(toc)
	var out bytes.Buffer
	out.WriteString(kpack.Magic)
	_ = binary.Write(&out, binary.LittleEndian, uint32(kpack.Version))
	_ = binary.Write(&out, binary.LittleEndian, uint64(kpack.HeaderSize+len(blob)))
	out.Write(make([]byte, kpack.HeaderSize-out.Len()))
	out.Write(blob)
	out.Write(enc.buf.Bytes())
	return out.Bytes()
}

// WriteFile builds s into dir/name and returns the path; it fails t on error.
func WriteFile(t testing.TB, dir, name string, s Spec) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, Build(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Msgpack encodes v the way msgpack-python does with use_bin_type=True
// (map keys sorted, since Go maps have no order). Useful for other formats
// that embed MessagePack, such as .rocm_kpack_ref sections.
func Msgpack(v any) []byte {
	enc := &encoder{rank: map[string]int{}}
	enc.value(v)
	return enc.buf.Bytes()
}

func scheme(s Spec) string {
	switch s.Scheme {
	case "", kpack.SchemeNone:
		return kpack.SchemeNone
	case kpack.SchemeZstd:
		return kpack.SchemeZstd
	}
	panic("kpacktest: unknown scheme " + s.Scheme)
}

// buildTOC returns the TOC without the storage fields, in writer order.
func buildTOC(s Spec) map[string]any {
	kernels := map[string]any{}
	for i, k := range s.Kernels {
		arches, _ := kernels[k.Key].(map[string]any)
		if arches == nil {
			arches = map[string]any{}
			kernels[k.Key] = arches
		}
		if _, dup := arches[k.Arch]; dup {
			panic("kpacktest: duplicate kernel " + k.Key + " @ " + k.Arch)
		}
		arches[k.Arch] = map[string]any{"type": "hsaco", "ordinal": i, "original_size": len(k.Data)}
	}
	return map[string]any{
		"format_version":     1,
		"group_name":         s.Group,
		"gfx_arch_family":    s.Family,
		"gfx_arches":         toAny(arches(s)),
		"toc":                kernels,
		"compression_scheme": scheme(s),
	}
}

func arches(s Spec) []string {
	if s.Arches != nil {
		return s.Arches
	}
	var out []string
	seen := map[string]bool{}
	for _, k := range s.Kernels {
		if !seen[k.Arch] {
			seen[k.Arch] = true
			out = append(out, k.Arch)
		}
	}
	return out
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// buildBlob returns the blob section and its TOC fields (offsets relative
// to the blob for none, fixed up by Build).
func buildBlob(s Spec) ([]byte, map[string]any) {
	var blob bytes.Buffer
	if scheme(s) == kpack.SchemeNone {
		blobs := []any{}
		for _, k := range s.Kernels {
			blobs = append(blobs, map[string]any{"offset": blob.Len(), "size": len(k.Data)})
			blob.Write(k.Data)
		}
		return blob.Bytes(), map[string]any{"blobs": blobs}
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	defer enc.Close()
	_ = binary.Write(&blob, binary.LittleEndian, uint32(len(s.Kernels)))
	var frame []byte
	for _, k := range s.Kernels {
		frame = enc.EncodeAll(k.Data, frame[:0])
		_ = binary.Write(&blob, binary.LittleEndian, uint32(len(frame)))
		blob.Write(frame)
	}
	return blob.Bytes(), map[string]any{"zstd_offset": kpack.HeaderSize, "zstd_size": blob.Len()}
}
