package codeobj_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/codeobj"
	"github.com/rocm-tools/kpack-lint/input/codeobj/codeobjtest"
)

func TestDecodeCodeObjectHostile(t *testing.T) {
	base := codeobjtest.CodeObject("gfx942", "")
	tests := []struct {
		name string
		edit func([]byte) []byte
		msg  string
	}{
		{"empty", func([]byte) []byte { return nil }, "not an ELF file"},
		{"elf32", func(b []byte) []byte { b[4] = 1; return b }, "ELFCLASS32"},
		{"huge shnum", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[40:], 64)     // e_shoff
			binary.LittleEndian.PutUint16(b[58:], 64)     // e_shentsize
			binary.LittleEndian.PutUint16(b[60:], 0xffff) // e_shnum
			return b
		}, "ELF does not parse"},
		{"unknown mach", func(b []byte) []byte { b[48] = 0xfe; return b }, "unknown EF_AMDGPU_MACH"},
		{"abi v2", func(b []byte) []byte { b[8] = 0; return b }, "unsupported EI_ABIVERSION"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := codeobj.DecodeCodeObject(tt.edit(append([]byte(nil), base...)), nil)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want ~ %q", err, tt.msg)
			}
		})
	}
}

func FuzzDecodeCodeObject(f *testing.F) {
	f.Add(codeobjtest.CodeObject("gfx90a:xnack+", "x"))
	f.Add(codeobjtest.CodeObject("gfx11-generic", ""))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = codeobj.DecodeCodeObject(b, nil)
	})
}
