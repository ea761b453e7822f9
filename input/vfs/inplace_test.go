package vfs

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"

	"github.com/rocm-tools/kpack-lint/internal/testutil/pkgbuild"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// codeLike returns n bytes that xz compresses a few times over, like
// code and tables: words and numbers with now and then random bytes.
func codeLike(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 3))
	words := []string{"kernel", "gfx942", "xnack", "offload", "bundle", "\x00\x00\x00\x00", ".text", "amdgcn"}
	var b bytes.Buffer
	for b.Len() < n {
		if rng.IntN(8) == 0 {
			for range 16 {
				b.WriteByte(byte(rng.Uint32()))
			}
			continue
		}
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(byte('0' + rng.IntN(10)))
	}
	return b.Bytes()[:n]
}

// blockFiles are a package's files for the in-place tests: three large
// members spanning many 64 KiB blocks between small ones.
func blockFiles() []pkgbuild.File {
	return []pkgbuild.File{
		pkgbuild.Dir("usr"), pkgbuild.Dir("usr/lib"),
		pkgbuild.Reg("usr/lib/a.so", codeLike(700<<10, 1)),
		pkgbuild.Reg("usr/lib/small", []byte("small")),
		pkgbuild.Reg("usr/lib/b.so", codeLike(900<<10, 2)),
		pkgbuild.Symlink("usr/lib/b.so.1", "b.so"),
		pkgbuild.Reg("usr/lib/c.so", codeLike(600<<10, 3)),
		pkgbuild.Reg("usr/lib/.kpack/x_gfx942.kpack", []byte("KPAK")),
	}
}

const blockSize = 64 << 10

// inPlaceInputs writes blockFiles as a tar.xz, a .deb and an rpm whose xz
// streams are cut into 64 KiB blocks.
func inPlaceInputs(t *testing.T) map[string]string {
	files := blockFiles()
	ms := pkgbuild.DebMembers(t, "xz", files)
	ms[2].Data = pkgbuild.CompressBlocks(t, pkgbuild.Tar(t, files), blockSize)
	var entries []pkgbuild.CPIOEntry
	for _, f := range files {
		switch {
		case f.Dir:
			entries = append(entries, pkgbuild.CPIOEntry{Header: cpio.Header{Name: "./" + f.Path, Mode: cpio.TypeDir | 0o755}})
		case f.Link != "":
			entries = append(entries, cpioLink("./"+f.Path, f.Link))
		default:
			entries = append(entries, cpioReg("./"+f.Path, string(f.Data)))
		}
	}
	rpm := pkgbuild.RawRPM(pkgbuild.Header(rpmTags("xz")), pkgbuild.CompressBlocks(t, pkgbuild.CPIO(t, entries), blockSize))
	return map[string]string{
		"tar.xz": pkgbuild.Write(t, "in.tar.xz", pkgbuild.CompressBlocks(t, pkgbuild.Tar(t, files), blockSize)),
		"deb":    pkgbuild.Write(t, "in.deb", pkgbuild.Ar(ms)),
		"rpm":    pkgbuild.Write(t, "in.rpm", rpm),
	}
}

// A multi-block xz stream is read in place: listing it decodes a small
// part of it (the blocks holding headers, up to the headers), every member
// is served from the block index with the right bytes, read whole or at
// random, and reading a member decodes about its blocks only.
func TestInPlaceXZ(t *testing.T) {
	files := blockFiles()
	for name, p := range inPlaceInputs(t) {
		t.Run(name, func(t *testing.T) {
			tr, err := Open([]string{p}, Options{Want: func(string, []byte) bool { return false }})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if len(tr.Problems) != 0 || tr.Inputs[0].Streamed != "" {
				t.Fatalf("problems %v, input %+v", tr.Problems, tr.Inputs[0])
			}
			b := tr.Entry("usr/lib/a.so").be.(*tarBackend)
			if b.xz == nil {
				t.Fatal("not read in place")
			}
			total := b.xz.Size()
			listed := b.xz.Stats().Decoded
			if listed > total/4 {
				t.Errorf("listing decoded %d of %d bytes", listed, total)
			}
			if got := readEntry(t, tr.Entry("usr/lib/b.so.1")); got != "b.so" {
				t.Errorf("symlink %q", got)
			}
			for _, f := range files {
				if f.Dir || f.Link != "" {
					continue
				}
				e := tr.Entry(f.Path)
				if e == nil || e.Size != int64(len(f.Data)) || b.members[e.loc].where != inXZ {
					t.Fatalf("%s: entry %+v", f.Path, e)
				}
				head, err := e.Head(16)
				if err != nil || !bytes.Equal(head, f.Data[:min(16, len(f.Data))]) {
					t.Errorf("%s: head %q %v", f.Path, head, err)
				}
			}
			before := b.xz.Stats().Decoded
			c := tr.Entry("usr/lib/c.so")
			if got := readEntry(t, c); got != string(files[6].Data) {
				t.Fatalf("c.so differs")
			}
			if d := b.xz.Stats().Decoded - before; d > c.Size+3*blockSize {
				t.Errorf("reading c.so (%d bytes) decoded %d", c.Size, d)
			}
			r, err := tr.Entry("usr/lib/b.so").Open()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			want := files[4].Data
			for _, off := range []int64{int64(len(want)) - 10, 0, 300 << 10, 123457} {
				got := make([]byte, 20)
				n, err := r.ReadAt(got, off)
				end := min(off+20, int64(len(want)))
				if n != int(end-off) || !bytes.Equal(got[:n], want[off:end]) || (end < off+20) != (err == io.EOF) {
					t.Errorf("ReadAt(%d) = %d %v", off, n, err)
				}
			}
			if pf, ok := r.(Prefetcher); !ok {
				t.Error("a member read in place takes no Prefetch hints")
			} else {
				pf.Prefetch(0, r.Size())
			}
		})
	}
}

// A stream read in place costs the budget its whole uncompressed size up
// front, as streaming it would: one that declares more than the budget
// is a Problem for the whole input at once, and the budget's error names
// it (an xz bomb cut into blocks stops before anything is decoded).
func TestInPlaceBudget(t *testing.T) {
	for name, p := range inPlaceInputs(t) {
		t.Run(name, func(t *testing.T) {
			b := inflate.New(8 << 20)
			tr, err := Open([]string{p}, Options{Budget: b})
			if err != nil {
				t.Fatal(err)
			}
			x := tr.Entry("usr/lib/a.so").be.(*tarBackend).xz
			if x == nil || b.Used() != x.Size() {
				t.Errorf("used %d, want the stream's size", b.Used())
			}
			tr.Close()
			b = inflate.New(1 << 20)
			tr, err = Open([]string{p}, Options{Budget: b})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			var le *inflate.LimitError
			if !errors.As(b.Err(), &le) || len(tr.Problems) != 1 || !strings.Contains(tr.Problems[0].Msg, "passed the run's budget of 1 MiB") {
				t.Fatalf("err %v, problems %v", b.Err(), tr.Problems)
			}
			if len(tr.Files()) != 0 {
				t.Errorf("files indexed past the budget: %d", len(tr.Files()))
			}
		})
	}
}

// A large stream of one block is streamed, and Input.Streamed says why
// and how to fix it; a small one is streamed without a word.
func TestInPlaceOneBlock(t *testing.T) {
	files := blockFiles()
	big := pkgbuild.Write(t, "one.tar.xz", pkgbuild.Compress(t, "xz", pkgbuild.Tar(t, files)))
	defer func(v int64) { largeOneBlock = v }(largeOneBlock)
	for _, tc := range []struct {
		large int64
		want  string
	}{{1 << 30, ""}, {1 << 20, "xz -T0"}} {
		largeOneBlock = tc.large
		tr := openTree(t, big)
		b := tr.Entry("usr/lib/a.so").be.(*tarBackend)
		if b.xz != nil || len(tr.Problems) != 0 {
			t.Fatalf("read in place: %v", tr.Problems)
		}
		if got := tr.Inputs[0].Streamed; tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("large from %d: Streamed %q, want %q", tc.large, got, tc.want)
		}
	}
}

// A corrupt block fails the reads of the members in it, not the listing
// of the others.
func TestInPlaceCorruptBlock(t *testing.T) {
	files := blockFiles()
	data := pkgbuild.CompressBlocks(t, pkgbuild.Tar(t, files), blockSize)
	data[len(data)/2] ^= 0x55 // inside b.so's blocks, which the listing skips
	p := pkgbuild.Write(t, "bad.tar.xz", data)
	tr := openTree(t, p)
	if len(tr.Problems) != 0 {
		t.Fatalf("problems %v", tr.Problems)
	}
	var failed int
	for _, f := range files {
		if f.Dir || f.Link != "" {
			continue
		}
		r, err := tr.Entry(f.Path).Open()
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, r.Size())
		_, err = r.ReadAt(got, 0)
		r.Close()
		if err != nil {
			failed++
			if !strings.Contains(err.Error(), "block") {
				t.Errorf("%s: %v", f.Path, err)
			}
		} else if !bytes.Equal(got, f.Data) {
			t.Errorf("%s: wrong bytes without an error", f.Path)
		}
	}
	if failed == 0 {
		t.Error("no read failed")
	}
}

// FuzzInPlace: a .tar.xz cut into blocks, with any bytes changed, opens
// with an error or problems, or lists members whose bytes read (in place
// or, when the index does not read, kept from the stream) with errors at
// worst: never a panic, never a read past a member's size.
func FuzzInPlace(f *testing.F) {
	files := []pkgbuild.File{
		pkgbuild.Dir("usr"),
		pkgbuild.Reg("usr/a.so", codeLike(20<<10, 4)),
		pkgbuild.Reg("usr/b", []byte("small")),
		pkgbuild.Reg("usr/c.so", codeLike(9<<10, 5)),
	}
	f.Add(pkgbuild.CompressBlocks(f, pkgbuild.Tar(f, files), 4<<10))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := pkgbuild.Write(t, "in.tar.xz", data)
		tr, err := Open([]string{p}, Options{Want: func(string, []byte) bool { return true }, BlockMemory: 1 << 20, Budget: inflate.New(16 << 20)})
		if err != nil {
			return
		}
		defer tr.Close()
		buf := make([]byte, 5000)
		for _, e := range tr.Files() {
			r, err := e.Open()
			if err != nil {
				continue
			}
			for off := int64(0); off < e.Size; off += int64(len(buf)) {
				n, _ := r.ReadAt(buf, off)
				if int64(n) > e.Size-off {
					t.Fatalf("%s: %d bytes read at %d of %d", e.Path, n, off, e.Size)
				}
			}
			r.Close()
		}
	})
}
