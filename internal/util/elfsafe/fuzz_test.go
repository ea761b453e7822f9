package elfsafe

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

// FuzzSections opens data with NewFile and reads every section through
// Data and the dynamic string tags through DynString: none may panic, and
// no section may give more than its stored bytes (uncompressed) or
// maxInflate bytes (compressed). Seeded from the host-binary testdata and
// the files the tests build.
func FuzzSections(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "input", "hostbin", "testdata", "*"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && filepath.Ext(p) != ".md" {
			f.Add(data)
		}
	}
	f.Add(testELF([]sec{{name: ".text", typ: elf.SHT_PROGBITS, data: []byte("abc")}}, 0, nil))
	f.Add(testELF(nil, elf.SHF_COMPRESSED, compressed(1<<40, zstdZeros(1<<20))))
	f.Add(testELF([]sec{
		{name: ".dynstr", typ: elf.SHT_STRTAB, data: []byte("\x00libx.so\x00")},
		{name: ".dynamic", typ: elf.SHT_DYNAMIC, flags: elf.SHF_COMPRESSED, data: compressed(64, zstdZeros(128<<10)), link: 1},
	}, 0, nil))
	maxInflate = 64 << 10 // inflating 16 MiB per run would cost 20-50 ms
	defer func() { maxInflate = MaxInflate }()
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := NewFile(bytes.NewReader(data), nil)
		if err != nil {
			return
		}
		for _, s := range file.Sections {
			b, err := Data(s, nil)
			if err != nil {
				continue
			}
			limit := s.FileSize
			if Compressed(s) {
				limit = maxInflate
			}
			if uint64(len(b)) > limit {
				t.Fatalf("section %q: %d bytes, more than %d", s.Name, len(b), limit)
			}
		}
		_, _ = DynString(file, elf.DT_SONAME, nil)
	})
}
