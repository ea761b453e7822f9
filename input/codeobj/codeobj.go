// Package codeobj reads AMDGPU code objects: the ELF64 header of an HSA
// code object (ELFOSABI_AMDGPU_HSA) and the target ID its EI_ABIVERSION
// and e_flags give (targetid.DecodeELF). It is the one place kpack-lint
// parses a code object's ELF: --deep verification (sim/verify) decodes
// each decompressed object, the kernel-database checks (sim/kerneldb) the
// first bytes of a loose one.
package codeobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/rocm-tools/kpack-lint/internal/util/elfsafe"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// ELF constants of AMDGPU HSA code objects (LLVM AMDGPUUsage, SPEC 6).
const (
	// OSABIAMDGPUHSA is EI_OSABI of an HSA code object (ELFOSABI_AMDGPU_HSA).
	OSABIAMDGPUHSA elf.OSABI = 64
	// elf64FlagsOffset is the offset of e_flags in an ELF64 header.
	elf64FlagsOffset = 48
	// HeaderSize is the size of an ELF64 header, the bytes DecodeHeader
	// needs.
	HeaderSize = 64
)

// HasELFMagic reports whether data starts with the ELF magic
// ("\x7fELF"), the only check HIP makes before it registers a kpack code
// object (rocclr amd::Elf::isElfMagic, clr rocclr/elf/elf.cpp:996-1002
// @rocm-6.2.0, from Program::addDeviceProgram).
func HasELFMagic(data []byte) bool {
	return len(data) >= len(elf.ELFMAG) && string(data[:len(elf.ELFMAG)]) == elf.ELFMAG
}

// DecodeCodeObject returns the target ID of an AMDGPU HSA code object: an
// ELF64 little-endian file with e_machine EM_AMDGPU (224) and EI_OSABI
// ELFOSABI_AMDGPU_HSA (64), whose EI_ABIVERSION and e_flags decode with
// targetid.DecodeELF. The ELF is parsed with debug/elf (section headers
// included) under a recover, so hostile bytes give an error, never a panic;
// a compressed section name table it inflates is counted with m, the
// run's budget of decompressed bytes (nil: not counted).
func DecodeCodeObject(data []byte, m *inflate.Meter) (targetid.ID, error) {
	if len(data) < HeaderSize || string(data[:4]) != elf.ELFMAG {
		return targetid.ID{}, fmt.Errorf("not an ELF file (%s, starts %q)", byteCount(int64(len(data))), head(data))
	}
	if elf.Class(data[elf.EI_CLASS]) != elf.ELFCLASS64 || elf.Data(data[elf.EI_DATA]) != elf.ELFDATA2LSB {
		return targetid.ID{}, fmt.Errorf("ELF %v %v, want ELFCLASS64 ELFDATA2LSB",
			elf.Class(data[elf.EI_CLASS]), elf.Data(data[elf.EI_DATA]))
	}
	hdr, err := parseELF(data, m)
	if err != nil {
		return targetid.ID{}, err
	}
	return decodeTarget(hdr.Machine, hdr.OSABI, hdr.ABIVersion, binary.LittleEndian.Uint32(data[elf64FlagsOffset:]))
}

// decodeTarget checks e_machine and EI_OSABI and decodes the target.
func decodeTarget(machine elf.Machine, osabi elf.OSABI, abiVersion uint8, flags uint32) (targetid.ID, error) {
	switch {
	case machine != elf.EM_AMDGPU:
		return targetid.ID{}, fmt.Errorf("e_machine %d (%v), want 224 (EM_AMDGPU)", uint16(machine), machine)
	case osabi != OSABIAMDGPUHSA:
		return targetid.ID{}, fmt.Errorf("EI_OSABI %d, want 64 (ELFOSABI_AMDGPU_HSA)", uint8(osabi))
	}
	return targetid.DecodeELF(abiVersion, flags)
}

// DecodeHeader is DecodeCodeObject for an object of size bytes of which
// only the first bytes (head, at least the 64-byte ELF64 header) are at
// hand: it checks the identification, e_machine and EI_OSABI and decodes
// EI_ABIVERSION and e_flags, but cannot parse the section headers. The
// kernel-database checks use it on loose code objects (vfs.Entry.Head).
func DecodeHeader(head []byte, size uint64) (targetid.ID, error) {
	if size < HeaderSize || len(head) < HeaderSize || string(head[:4]) != elf.ELFMAG {
		return targetid.ID{}, fmt.Errorf("not an ELF file (%s, starts %q)", byteCount(int64(size)), head[:min(len(head), 4)])
	}
	if elf.Class(head[elf.EI_CLASS]) != elf.ELFCLASS64 || elf.Data(head[elf.EI_DATA]) != elf.ELFDATA2LSB {
		return targetid.ID{}, fmt.Errorf("ELF %v %v, want ELFCLASS64 ELFDATA2LSB",
			elf.Class(head[elf.EI_CLASS]), elf.Data(head[elf.EI_DATA]))
	}
	return decodeTarget(elf.Machine(binary.LittleEndian.Uint16(head[18:])), elf.OSABI(head[elf.EI_OSABI]),
		head[elf.EI_ABIVERSION], binary.LittleEndian.Uint32(head[elf64FlagsOffset:]))
}

// parseELF runs debug/elf.NewFile, turning a panic into an error. A code
// object that elfParses accepts skips debug/elf, which allocates every
// section and program header, with the same result.
func parseELF(data []byte, m *inflate.Meter) (hdr elf.FileHeader, err error) {
	if elfParses(data) {
		return elf.FileHeader{
			Class: elf.ELFCLASS64, Data: elf.ELFDATA2LSB, Version: elf.EV_CURRENT,
			OSABI: elf.OSABI(data[elf.EI_OSABI]), ABIVersion: data[elf.EI_ABIVERSION],
			ByteOrder: binary.LittleEndian,
			Type:      elf.Type(binary.LittleEndian.Uint16(data[16:])),
			Machine:   elf.Machine(binary.LittleEndian.Uint16(data[18:])),
			Entry:     binary.LittleEndian.Uint64(data[24:]),
		}, nil
	}
	return parseELFSlow(data, m)
}

// parseELFSlow is debug/elf.NewFile under a recover, through elfsafe: a
// compressed section name table declaring more than elfsafe.MaxInflate
// bytes is an error, not an inflation.
func parseELFSlow(data []byte, m *inflate.Meter) (hdr elf.FileHeader, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("ELF does not parse: debug/elf panicked: %v", r)
		}
	}()
	var r bytes.Reader // on the stack unless debug/elf keeps it
	r.Reset(data)
	f, err := elfsafe.NewFile(&r, m)
	if err != nil {
		return elf.FileHeader{}, fmt.Errorf("ELF does not parse: %w", err)
	}
	return f.FileHeader, nil
}

// elfParses reports whether debug/elf.NewFile (Go 1.26) surely parses data,
// an ELF64 little-endian file at least 64 bytes long: it makes the same
// checks on the header, the program and section header tables and the
// section name string table, and gives up (false: ask debug/elf) on what
// it does not model, extended section numbering and compressed sections.
// TestELFParsesAgreesWithDebugELF and FuzzELFParses hold it to debug/elf.
func elfParses(data []byte) bool {
	le := binary.LittleEndian
	size := uint64(len(data))
	if len(data) < HeaderSize || data[elf.EI_VERSION] != byte(elf.EV_CURRENT) || le.Uint32(data[20:]) != uint32(elf.EV_CURRENT) {
		return false
	}
	phoff, shoff := le.Uint64(data[32:]), le.Uint64(data[40:])
	phentsize, phnum := uint64(le.Uint16(data[54:])), uint64(le.Uint16(data[56:]))
	shentsize, shnum, shstrndx := uint64(le.Uint16(data[58:])), uint64(le.Uint16(data[60:])), uint64(le.Uint16(data[62:]))
	// within reports whether [off, off+n) lies in data (n > 0; n == 0 reads
	// nothing and always succeeds).
	within := func(off, n uint64) bool { return n == 0 || (off < size && n <= size-off) }
	switch {
	case int64(phoff) < 0 || int64(shoff) < 0:
		return false
	case (shnum == 0) != (shoff == 0): // an error, or extended numbering
		return false
	case shnum > 0 && (shstrndx >= shnum || shentsize < 64):
		return false
	case phnum > 0 && phentsize < 56:
		return false
	case !within(phoff, phnum*phentsize) || !within(shoff, shnum*shentsize):
		return false
	}
	for i := uint64(0); i < phnum; i++ {
		ph := data[phoff+i*phentsize:]
		if int64(le.Uint64(ph[8:])) < 0 || int64(le.Uint64(ph[32:])) < 0 { // p_offset, p_filesz
			return false
		}
	}
	for i := uint64(0); i < shnum; i++ {
		sh := data[shoff+i*shentsize:]
		if le.Uint64(sh[8:])&uint64(elf.SHF_COMPRESSED) != 0 || int64(le.Uint64(sh[24:])) < 0 || int64(le.Uint64(sh[32:])) < 0 {
			return false
		}
	}
	if shnum == 0 || shstrndx == 0 {
		return true
	}
	str := data[shoff+shstrndx*shentsize:]
	off, n := le.Uint64(str[24:]), le.Uint64(str[32:])
	if elf.SectionType(le.Uint32(str[4:])) != elf.SHT_STRTAB || n == 0 || !within(off, n) { // n == 0: no name resolves
		return false
	}
	tab := data[off : off+n]
	for i := uint64(0); i < shnum; i++ {
		name := uint64(le.Uint32(data[shoff+i*shentsize:]))
		if name >= n || bytes.IndexByte(tab[name:], 0) < 0 {
			return false
		}
	}
	return true
}

func head(b []byte) []byte {
	return b[:min(len(b), 4)]
}

// byteCount gives "1 byte" or "219 bytes".
func byteCount(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
