package kerneldb

import (
	"bytes"
	"compress/zlib"
	"errors"
	"testing"

	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// A .dat.zlib index is decompressed within MaxIndexBytes and the run's
// budget: past the budget the error is its *inflate.LimitError.
func TestInflateIndexBudget(t *testing.T) {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(make([]byte, 3<<20))
	w.Close()
	b := inflate.New(4 << 20)
	if buf, err := inflateIndex(bytes.NewReader(z.Bytes()), MaxIndexBytes, b.Meter("the index x.dat.zlib")); err != nil || len(buf) != 3<<20 || b.Used() != 3<<20 {
		t.Fatalf("within the budget: %d bytes, %v, used %d", len(buf), err, b.Used())
	}
	_, err := inflateIndex(bytes.NewReader(z.Bytes()), MaxIndexBytes, b.Meter("the index y.dat.zlib"))
	var le *inflate.LimitError
	if !errors.As(err, &le) || le.What != "the index y.dat.zlib" {
		t.Fatalf("past the budget = %v", err)
	}
}
