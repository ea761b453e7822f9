// Package codeobjtest builds minimal AMDGPU code objects for tests: a 64-byte
// ELF64 header with no program or section headers, which debug/elf and
// codeobj.DecodeCodeObject accept.
package codeobjtest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/rocm-tools/kpack-lint/input/kpack/kpacktest"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// ELF header fields of an AMDGPU HSA code object.
const (
	EMAMDGPU   = 224 // e_machine EM_AMDGPU
	OSABIHSA   = 64  // EI_OSABI ELFOSABI_AMDGPU_HSA
	ABIV5      = 3   // EI_ABIVERSION of code object v5
	ABIV6      = 4   // EI_ABIVERSION of code object v6 (needed by generic targets)
	headerSize = 64
)

// Header returns a 64-byte ELF64 LE header with the given e_machine,
// EI_OSABI, EI_ABIVERSION and e_flags, followed by pad zero bytes (so
// objects of one target can differ in content).
func Header(machine uint16, osabi, abiVersion uint8, flags uint32, pad []byte) []byte {
	b := make([]byte, headerSize, headerSize+len(pad))
	copy(b, "\x7fELF")
	b[4], b[5], b[6] = 2, 1, 1 // ELFCLASS64, ELFDATA2LSB, EV_CURRENT
	b[7], b[8] = osabi, abiVersion
	le := binary.LittleEndian
	le.PutUint16(b[16:], 3) // ET_DYN
	le.PutUint16(b[18:], machine)
	le.PutUint32(b[20:], 1) // e_version
	le.PutUint32(b[48:], flags)
	le.PutUint16(b[52:], headerSize) // e_ehsize
	return append(b, pad...)
}

// Flags returns the code object v4+ e_flags for a target ID: EF_AMDGPU_MACH,
// the xnack and sramecc selectors (on, off, or "any" when the processor
// supports the feature and the ID leaves it out) and, for generic
// processors, EF_AMDGPU_GENERIC_VERSION. It panics on an invalid ID.
func Flags(target string) uint32 {
	id, err := targetid.Parse(target)
	if err != nil {
		panic(err)
	}
	p, _ := targetid.LookupProcessor(id.Processor)
	flags := p.Mach | p.GenericVersion<<24
	flags |= selector(id, p.Xnack, targetid.Xnack) << 8
	flags |= selector(id, p.Sramecc, targetid.Sramecc) << 10
	return flags
}

func selector(id targetid.ID, supported bool, name string) uint32 {
	enabled, set := id.Setting(name)
	switch {
	case !supported:
		return 0
	case !set:
		return 1
	case enabled:
		return 3
	}
	return 2
}

// CodeObject returns a minimal code object for target (code object v6 for
// generic processors, else v5), followed by pad.
func CodeObject(target string, pad string) []byte {
	abi := uint8(ABIV5)
	if id, _ := targetid.Parse(target); isGeneric(id.Processor) {
		abi = ABIV6
	}
	return Header(EMAMDGPU, OSABIHSA, abi, Flags(target), []byte(pad))
}

func isGeneric(proc string) bool {
	p, ok := targetid.LookupProcessor(proc)
	return ok && p.Generic
}

// NoiseKernels returns n kernels "bin/a#0".."bin/a#<n-1>" stored under
// target, each a code object for target whose text is size bytes of
// seeded noise: they do not compress, so an archive of them is as large
// as they are (tests that need a zstd blob of several reads).
func NoiseKernels(seed uint64, n, size int, target string) []kpacktest.Kernel {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	ks := make([]kpacktest.Kernel, 0, n)
	for i := range n {
		text := make([]byte, size)
		for j := range text {
			text[j] = byte(rng.Uint32())
		}
		ks = append(ks, kpacktest.Kernel{Key: fmt.Sprintf("bin/a#%d", i), Arch: target, Data: CodeObject(target, string(text))})
	}
	return ks
}
