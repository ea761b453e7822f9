package hostbin_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/hostbin/hostbintest"
)

// seedTestdata adds every binary in testdata to the corpus.
func seedTestdata(f *testing.F) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) == ".md" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzRead(f *testing.F) {
	seedTestdata(f)
	f.Add(hostbintest.ELF(goodRef, hostbintest.HIPK(2)))
	f.Add(hostbintest.PE(goodRef, hostbintest.HIPK(2)))
	rccl, _, _ := hostbintest.RelocELF(hostbintest.RelocSpec{Bundles: [][]byte{relocBundleA}, Stored: []uint64{0, 0},
		Syms:   []hostbintest.Sym{fatbinSym},
		Relocs: []hostbintest.Reloc{{Type: uint32(elf.R_X86_64_64), Sym: 1}, {Wrapper: 1, Type: uint32(elf.R_X86_64_GLOB_DAT), Sym: 1}}})
	f.Add(rccl)
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := hostbin.Read(bytes.NewReader(data), int64(len(data)))
		var fe *hostbin.FormatError
		switch {
		case err == nil && b == nil:
			t.Fatal("nil Binary without error")
		case err != nil && !errors.Is(err, hostbin.ErrNotBinary) && !errors.As(err, &fe):
			t.Fatalf("unexpected error type %T: %v", err, err)
		case err == nil && b.Ref != nil && len(b.Ref.SearchPaths) == 0:
			t.Fatal("Ref without search paths")
		}
	})
}

func FuzzParseRef(f *testing.F) {
	f.Add(goodRef)
	f.Add(hostbintest.RefBytes("k"))
	f.Add([]byte{0x82, 0xa1, 'k'})
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, probs := hostbin.ParseRef(data)
		invalid := false
		for _, p := range probs {
			invalid = invalid || p.Kind.Invalid()
			if p.Offset < 0 || p.Offset > int64(len(data)) {
				t.Fatalf("problem offset %d outside %d bytes", p.Offset, len(data))
			}
		}
		if invalid != (ref == nil) {
			t.Fatalf("Ref %+v with problems %v", ref, probs)
		}
	})
}
