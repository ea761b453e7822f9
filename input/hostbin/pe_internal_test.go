package hostbin

import (
	"bytes"
	"debug/pe"
	"os"
	"path/filepath"
	"testing"
)

// FuzzPEHeaders holds readPEHeaders to debug/pe.NewFile: whatever debug/pe
// parses, readPEHeaders parses too, with the same image base and section
// headers (names of at most peMaxLongName bytes). It may accept more
// (it does not read COFF symbols or relocations). Seeded from testdata.
func FuzzPEHeaders(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.dll"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := readPEHeaders(bytes.NewReader(data), int64(len(data)))
		if len(data) < 96 || data[0] != 'M' || data[1] != 'Z' {
			return // debug/pe reads 96 bytes and takes a file without MZ as an object file
		}
		want, werr := pe.NewFile(bytes.NewReader(data))
		if werr != nil {
			return
		}
		if err != nil {
			t.Fatalf("readPEHeaders: %v; debug/pe parses it", err)
		}
		var base uint64
		switch oh := want.OptionalHeader.(type) {
		case *pe.OptionalHeader64:
			base = oh.ImageBase
		case *pe.OptionalHeader32:
			base = uint64(oh.ImageBase)
		}
		if h.imageBase != base || len(h.sections) != len(want.Sections) {
			t.Fatalf("base %#x, %d sections; debug/pe %#x, %d", h.imageBase, len(h.sections), base, len(want.Sections))
		}
		for i, s := range want.Sections {
			got := h.sections[i]
			if len(s.Name) <= peMaxLongName && got.name != s.Name || got.virtualSize != s.VirtualSize ||
				got.virtualAddress != s.VirtualAddress || got.sizeOfRawData != s.Size || got.pointerToRawData != s.Offset {
				t.Fatalf("section %d: %+v; debug/pe %+v", i, got, s.SectionHeader)
			}
		}
	})
}
