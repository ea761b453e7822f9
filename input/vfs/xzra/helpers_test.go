package xzra

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

// sample returns n bytes that compress about 3:1: words from a small
// vocabulary with random numbers and now and then random bytes, like
// code and tables.
func sample(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := []string{"kernel", "gfx90a", "xnack", "offload", "bundle", "\x00\x00\x00\x00", "section", ".text", "amdgcn", "rocblas"}
	var b bytes.Buffer
	for b.Len() < n {
		switch rng.IntN(8) {
		case 0:
			var r [16]byte
			for i := range r {
				r[i] = byte(rng.Uint32())
			}
			b.Write(r[:])
		default:
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	return b.Bytes()[:n]
}

// compress writes data as one xz stream cut into blocks of block bytes
// with the given check (github.com/ulikunitz/xz's writer).
func compress(t testing.TB, data []byte, block int64, check byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := uxz.WriterConfig{BlockSize: block, CheckSum: check, NoCheckSum: check == uxz.None, DictCap: 1 << 20}.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// footerAt returns the offset of the stream footer of a one-stream file
// without padding, and the offset of its index.
func footerAt(f []byte) (foot, index int64) {
	foot = int64(len(f) - footerLen)
	back := (int64(binary.LittleEndian.Uint32(f[foot+4:])) + 1) * 4
	return foot, foot - back
}

// fixIndexCRC recomputes the CRC32 of the index at off (size bytes).
func fixIndexCRC(f []byte, off, size int64) {
	binary.LittleEndian.PutUint32(f[off+size-4:], crc32.ChecksumIEEE(f[off:off+size-4]))
}

// open opens the xz file f with opt, failing the test on an error.
func open(t testing.TB, f []byte, opt Options) *Reader {
	t.Helper()
	x, err := Open(bytes.NewReader(f), int64(len(f)), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestWriteSample writes the input of the testdata files when
// XZRA_WRITE_SAMPLE names a file (see testdata/README).
func TestWriteSample(t *testing.T) {
	if p := os.Getenv("XZRA_WRITE_SAMPLE"); p != "" {
		if err := os.WriteFile(p, sample(65536, 20), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
