package hostbintest

import (
	"bytes"
	"debug/pe"
	"encoding/binary"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
)

// Layout constants of the PE writer.
const (
	peImageBase    = 0x180000000 // usual DLL base
	peFileAlign    = 0x200
	peSectionAlign = 0x1000
	peHeaderStart  = 0x40 // e_lfanew: PE signature right after the DOS header
	peDataRead     = pe.IMAGE_SCN_CNT_INITIALIZED_DATA | pe.IMAGE_SCN_MEM_READ
)

// PESection is one section for PEWith. Name is at most 8 bytes. VirtualSize
// 0 means len(Data); a larger VirtualSize reads as zero-padded in memory.
// Characteristics 0 means initialised read-only data.
type PESection struct {
	Name            string
	Data            []byte
	VirtualSize     uint32
	Characteristics uint32
}

// PE builds a minimal PE32+ x86-64 DLL with a .kpackrf section holding ref
// (none when ref is nil) and a .hipFatB section holding the wrappers (none
// when wrappers is nil). Each wrapper's binary field holds the reference's
// address (ImageBase + RVA).
func PE(ref []byte, wrappers []Wrap) []byte {
	var secs []PESection
	if ref != nil {
		secs = append(secs, PESection{Name: hostbin.RefSectionPE, Data: ref})
	}
	if wrappers != nil {
		addr := uint64(0)
		if ref != nil {
			addr = peImageBase + peSectionAlign
		}
		secs = append(secs, PESection{Name: hostbin.FatBinSectionPE, Data: WrapperBytes(wrappers, addr),
			Characteristics: peDataRead | pe.IMAGE_SCN_MEM_WRITE})
	}
	return PEWith(secs...)
}

// PEWith builds a minimal PE32+ x86-64 DLL with the given sections in order
// (file alignment 0x200, section alignment 0x1000, first section at RVA
// 0x1000), no symbols, no imports and no entry point.
func PEWith(secs ...PESection) []byte {
	hdrSize := alignUp(peHeaderStart+4+20+240+40*len(secs), peFileAlign)
	shdrs, body, imageSize := peLayout(secs, hdrSize)
	var out bytes.Buffer
	dos := make([]byte, peHeaderStart)
	copy(dos, "MZ")
	binary.LittleEndian.PutUint32(dos[0x3c:], peHeaderStart)
	out.Write(dos)
	out.WriteString("PE\x00\x00")
	fh := pe.FileHeader{Machine: pe.IMAGE_FILE_MACHINE_AMD64, NumberOfSections: uint16(len(secs)),
		SizeOfOptionalHeader: 240, Characteristics: pe.IMAGE_FILE_EXECUTABLE_IMAGE |
			pe.IMAGE_FILE_LARGE_ADDRESS_AWARE | pe.IMAGE_FILE_DLL}
	// Writes to a bytes.Buffer of fixed-size structs cannot fail.
	_ = binary.Write(&out, binary.LittleEndian, fh)
	_ = binary.Write(&out, binary.LittleEndian, optionalHeader(uint32(hdrSize), imageSize))
	_ = binary.Write(&out, binary.LittleEndian, shdrs)
	return append(pad(out.Bytes(), hdrSize), body...)
}

// peLayout places the sections after the headers and returns their headers,
// the raw data that follows the headers, and SizeOfImage.
func peLayout(secs []PESection, hdrSize int) ([]pe.SectionHeader32, []byte, uint32) {
	shdrs := make([]pe.SectionHeader32, len(secs))
	var body []byte
	rva := uint32(peSectionAlign)
	for i, s := range secs {
		vsize := s.VirtualSize
		if vsize == 0 {
			vsize = uint32(len(s.Data))
		}
		h := pe.SectionHeader32{VirtualSize: vsize, VirtualAddress: rva, Characteristics: s.Characteristics}
		if h.Characteristics == 0 {
			h.Characteristics = peDataRead
		}
		copy(h.Name[:], s.Name)
		if len(s.Data) > 0 {
			h.PointerToRawData = uint32(hdrSize + len(body))
			h.SizeOfRawData = uint32(alignUp(len(s.Data), peFileAlign))
			body = pad(append(body, s.Data...), int(h.PointerToRawData+h.SizeOfRawData)-hdrSize)
		}
		shdrs[i] = h
		rva += uint32(alignUp(max(int(vsize), 1), peSectionAlign))
	}
	return shdrs, body, rva
}

func optionalHeader(hdrSize, imageSize uint32) pe.OptionalHeader64 {
	return pe.OptionalHeader64{
		Magic:                       0x20b, // PE32+
		ImageBase:                   peImageBase,
		SectionAlignment:            peSectionAlign,
		FileAlignment:               peFileAlign,
		MajorOperatingSystemVersion: 6,
		MajorSubsystemVersion:       6,
		SizeOfImage:                 imageSize,
		SizeOfHeaders:               hdrSize,
		Subsystem:                   pe.IMAGE_SUBSYSTEM_WINDOWS_CUI,
		DllCharacteristics: pe.IMAGE_DLLCHARACTERISTICS_DYNAMIC_BASE |
			pe.IMAGE_DLLCHARACTERISTICS_NX_COMPAT | pe.IMAGE_DLLCHARACTERISTICS_HIGH_ENTROPY_VA,
		SizeOfStackReserve:  0x100000,
		SizeOfStackCommit:   0x1000,
		SizeOfHeapReserve:   0x100000,
		SizeOfHeapCommit:    0x1000,
		NumberOfRvaAndSizes: 16,
	}
}
