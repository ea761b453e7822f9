package vfs

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/vfs/xzra"
	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
)

// TestInPlaceDecoders: every decoder of xz blocks (the Go one, liblzma
// where it loads, XZ Utils' xz where it is on PATH) serves the same bytes
// of every member of the tar.xz, .deb and rpm read in place, and of a
// tar.xz of one block, streamed (by liblzma or xz too with Options.Liblzma
// or XZ).
func TestInPlaceDecoders(t *testing.T) {
	decoders := map[string]Options{"go": {}}
	if xzra.HaveLiblzma() {
		decoders["liblzma"] = Options{Liblzma: true}
	}
	if xz := xzra.FindXZ(); xz != "" {
		decoders["xz"] = Options{XZ: xz}
	}
	files := blockFiles()
	inputs := inPlaceInputs(t)
	inputs["tar.xz of one block"] = pkgbuild.Write(t, "one.tar.xz", pkgbuild.Compress(t, "xz", pkgbuild.Tar(t, files)))
	for in, p := range inputs {
		for name, opt := range decoders {
			tr, err := Open([]string{p}, opt)
			if err != nil || len(tr.Problems) != 0 {
				t.Fatalf("%s, %s: %v %v", in, name, err, tr.Problems)
			}
			for _, f := range files {
				if f.Dir || f.Link != "" {
					continue
				}
				if got := readEntry(t, tr.Entry(f.Path)); got != string(f.Data) {
					t.Errorf("%s, %s: %s differs (%d bytes, want %d)", in, name, f.Path, len(got), len(f.Data))
				}
			}
			tr.Close()
		}
	}
}

// TestStreamedWithoutIndex: a one-block tar.xz whose index and footer are
// cut off, or followed by the 12 bytes of a stream header, is a Problem
// with every decoder, though the tar inside reads to its end
// (github.com/ulikunitz/xz takes a missing index for the end of the
// stream; its index is read first, as for the streams read in place).
func TestStreamedWithoutIndex(t *testing.T) {
	files := blockFiles()
	whole := pkgbuild.Compress(t, "xz", pkgbuild.Tar(t, files))
	foot := whole[len(whole)-12:]
	backward := (int(foot[4]) | int(foot[5])<<8 | int(foot[6])<<16 | int(foot[7])<<24 + 1) * 4
	inputs := map[string][]byte{
		"no index":       whole[:len(whole)-12-backward],
		"a header after": append(append([]byte{}, whole...), whole[:12]...),
	}
	opts := streamDecoders()
	for in, data := range inputs {
		p := pkgbuild.Write(t, "cut.tar.xz", data)
		for name, opt := range opts {
			tr, err := Open([]string{p}, opt)
			if err != nil {
				t.Fatalf("%s, %s: %v", in, name, err)
			}
			if len(tr.Problems) != 1 || !strings.Contains(tr.Problems[0].Msg, "bad tar.xz stream") {
				t.Errorf("%s, %s: problems %+v, want one naming the stream", in, name, tr.Problems)
			}
			tr.Close()
		}
	}
}

// TestStreamedDictionaryBound: a one-block tar.xz whose block header
// declares a 1.5 GiB dictionary is a Problem naming --deep-memory before
// anything is allocated for it, with either decoder of streams.
func TestStreamedDictionaryBound(t *testing.T) {
	xz := pkgbuild.Compress(t, "xz", pkgbuild.Tar(t, blockFiles()))
	size := (int(xz[12]) + 1) * 4
	hdr := xz[12 : 12+size]
	at := bytes.Index(hdr, []byte{0x21, 0x01}) // LZMA2, one byte of properties
	if at < 0 {
		t.Fatal("no LZMA2 filter in the block header")
	}
	hdr[at+2] = 37 // 3 << 29 bytes
	binary.LittleEndian.PutUint32(hdr[size-4:], crc32.ChecksumIEEE(hdr[:size-4]))
	p := pkgbuild.Write(t, "big-dict.tar.xz", xz)
	opts := streamDecoders()
	for name, opt := range opts {
		tr, err := Open([]string{p}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Problems) != 1 || !strings.Contains(tr.Problems[0].Msg, "256 MiB of memory allowed (--deep-memory)") {
			t.Errorf("%s: problems %+v, want one naming the 256 MiB allowed", name, tr.Problems)
		}
		tr.Close()
	}
}

// streamDecoders are the decoders of xz streams read front to back: the
// Go one, and liblzma and XZ Utils' xz where they are there.
func streamDecoders() map[string]Options {
	opts := map[string]Options{"go": {}}
	if xzra.HaveLiblzma() {
		opts["liblzma"] = Options{Liblzma: true}
	}
	if xz := xzra.FindXZ(); xz != "" {
		opts["xz"] = Options{XZ: xz}
	}
	return opts
}
