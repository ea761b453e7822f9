// Package hostbin reads kpack references from host binaries: ELF shared
// objects and executables, and PE/COFF DLLs and executables whose device code
// was moved into .kpack archives.
//
// A kpack'd host binary carries two sections (rocm-kpack runtime and its
// Python writer, clang offload wrapper layout):
//
//   - the reference section (.rocm_kpack_ref, PE: .kpackrf), a MessagePack
//     map {kernel_name: str, kpack_search_paths: [str, ...]};
//   - the fat-binary segment (.hipFatBinSegment, PE: .hipFatB), an array of
//     24-byte __CudaFatBinaryWrapper records, one per translation unit.
//
// Read locates both sections, decodes the reference as the runtime does and
// lists the wrappers. Problems the runtime would hit (INVALID_METADATA, error
// 12) are returned as data in Binary.Problems, not as errors; errors are kept
// for files that cannot be parsed at all.
package hostbin

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// Section names. PE/COFF section names are at most 8 bytes, so the PE names
// are shortened forms (rocm-kpack Python writer, coff surgery).
const (
	RefSectionELF    = ".rocm_kpack_ref"   // ELF reference section
	FatBinSectionELF = ".hipFatBinSegment" // ELF wrapper array
	RefSectionPE     = ".kpackrf"          // PE/COFF reference section
	FatBinSectionPE  = ".hipFatB"          // PE/COFF wrapper array
)

// Size limits, in bytes.
const (
	// RuntimeRefLimit is the most the runtime reads of a reference:
	// kpack_load_code_object unpacks at most MAX_METADATA_SIZE (64 KiB)
	// bytes from the wrapper's pointer, so Read looks at no more than this
	// prefix of the reference section.
	RuntimeRefLimit = 64 << 10
	// MaxFatBinSectionSize bounds the fat-binary segment Read will load
	// (64 MiB, about 2.8 million wrappers). A larger segment is reported as
	// a FatBinTooLarge problem and its wrappers are not read.
	MaxFatBinSectionSize = 64 << 20
)

// Format is the container format of a host binary: FormatELF or FormatPE.
type Format string

// The host binary formats.
const (
	FormatELF Format = "elf" // ELF (Linux .so and executables)
	FormatPE  Format = "pe"  // PE/COFF (Windows .dll and .exe)
)

// RefSection returns the reference section name used by the format.
func (f Format) RefSection() string {
	if f == FormatPE {
		return RefSectionPE
	}
	return RefSectionELF
}

// FatBinSection returns the fat-binary segment name used by the format.
func (f Format) FatBinSection() string {
	if f == FormatPE {
		return FatBinSectionPE
	}
	return FatBinSectionELF
}

// Ref is the decoded reference section: which TOC key prefix the binary's
// kernels use and where to look for archives.
type Ref struct {
	// KernelName is the TOC lookup prefix; the loader's key for a wrapper
	// is KernelName + "#" + co_index, e.g. "lib/librocblas.so#0".
	KernelName string
	// SearchPaths are archive paths as stored, relative to the directory
	// of the binary's file unless absolute, possibly containing
	// "@GFXARCH@". Non-string entries, which the runtime skips, are left
	// out. Never empty in a Ref returned by ParseRef or Read.
	SearchPaths []string
}

// Section is a section's place in the file. Offset and FileSize are in bytes
// from the start of the file; Size is the section's size in memory. Bytes
// from FileSize up to Size read as zero (ELF SHT_NOBITS sections have
// FileSize 0; PE sections whose VirtualSize exceeds SizeOfRawData are padded).
type Section struct {
	Name     string
	Offset   int64  // file offset of the first byte
	Size     int64  // size in memory (ELF sh_size; PE VirtualSize, or SizeOfRawData when VirtualSize is 0)
	FileSize int64  // bytes stored in the file, at most Size
	Addr     uint64 // ELF sh_addr; PE ImageBase + VirtualAddress
}

// Binary is what Read found in a host binary.
type Binary struct {
	Format Format
	// Ref is the decoded reference, nil when the reference section is
	// absent or the runtime would reject it (see Problems).
	Ref *Ref
	// RefSection is the reference section, nil when absent.
	RefSection *Section
	// FatBinSection is the fat-binary segment, nil when absent.
	FatBinSection *Section
	// Wrappers are the wrappers stored in the fat-binary segment, HIPK
	// and HIPF alike, in file order. The all-zero wrappers of a
	// zero-filled tail (SHT_NOBITS, PE VirtualSize past the raw data) are
	// not listed: the runtime ignores them and the headers alone could
	// declare millions.
	Wrappers []Wrapper
	// Problems are defects of the reference or the wrappers, in the order
	// found. See ProblemKind.
	Problems []Problem
	// Bundles are the offload bundles of the wrappers HIP reads as
	// embedded fat binaries (Wrapper.Embedded), one per such wrapper, in
	// wrapper order.
	Bundles []Bundle
	// BundleSection is the .hip_fatbin section (PE: .hip_fat), nil when
	// absent.
	BundleSection *Section
}

// Kpacked reports whether the binary carries any kpack data: a reference
// section or at least one HIPK wrapper.
func (b *Binary) Kpacked() bool {
	return b.RefSection != nil || len(b.COIndexes()) > 0
}

// COIndexes returns the co_index of each kpack wrapper (Wrapper.IsKpack),
// in wrapper order. Duplicates are kept: each wrapper is loaded on its own,
// so a repeated co_index is looked up twice under the same key. Other
// wrappers are skipped.
func (b *Binary) COIndexes() []uint32 {
	var idx []uint32
	for _, w := range b.Wrappers {
		if w.IsKpack() {
			idx = append(idx, w.COIndex())
		}
	}
	return idx
}

// ErrNotBinary is returned by Read for input that is neither ELF nor PE.
// Callers walking a file tree skip such files quietly.
var ErrNotBinary = errors.New("hostbin: not an ELF or PE file")

// FormatError reports a file that looks like ELF or PE (by its magic bytes)
// but cannot be parsed: bad headers, sections past the end of the file, or a
// panic inside debug/elf or debug/pe on hostile input.
type FormatError struct {
	Msg string
	Err error // underlying error, may be nil
}

// Error returns "hostbin: <Msg>[: <Err>]".
func (e *FormatError) Error() string {
	if e.Err == nil {
		return "hostbin: " + e.Msg
	}
	return "hostbin: " + e.Msg + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(err error, format string, args ...any) *FormatError {
	return &FormatError{Msg: fmt.Sprintf(format, args...), Err: err}
}

// Sniff reports whether head, the first bytes of a file, looks like ELF
// ("\x7fELF") or PE ("MZ", the DOS stub every PE image starts with).
func Sniff(head []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return FormatELF, true
	case bytes.HasPrefix(head, []byte("MZ")):
		return FormatPE, true
	}
	return "", false
}

// Read parses the host binary in r, which holds size bytes. It returns
// ErrNotBinary for files that are neither ELF nor PE and a *FormatError for
// files that look like one but cannot be parsed; other errors come from r.
// It never panics. A binary
// with neither kpack section is returned with nil Ref, no wrappers and no
// problems. Allocations are bounded by RuntimeRefLimit and
// MaxFatBinSectionSize whatever the headers claim, and never exceed the
// bytes the file stores (plus one record).
func Read(r io.ReaderAt, size int64) (*Binary, error) { return ReadMetered(r, size, nil) }

// ReadMetered is Read counting what it decompresses (a compressed section
// name table or .rela.dyn, the entry tables of compressed offload
// bundles) with m, the run's budget of decompressed bytes (nil: not
// counted). Past the budget, what was left to decompress does not read:
// a *FormatError or a Problem wrapping or quoting its
// *inflate.LimitError.
func ReadMetered(r io.ReaderAt, size int64, m *inflate.Meter) (b *Binary, err error) {
	return ReadHooked(r, size, m, Hooks{})
}

// Hooks are called while a binary is read (ReadHooked), in the reading
// goroutine.
type Hooks struct {
	// Bundle is called with the binary being read and each distinct
	// embedded offload bundle whose entry table read (bd.Err == "",
	// bd.Offset >= 0), right after that table and before the next
	// bundle's, in wrapper order: the bundle's code objects follow its
	// table in the file, so a caller that reads them there (check --deep
	// on a package read in place) reads the file once, front to back. b
	// has every field but Bundles and Problems set; bd is not yet in
	// b.Bundles. With Bundle set, the bundles' tables are not prefetched
	// ahead of the reads (Prefetcher): the caller reads each bundle where
	// it is called and prefetches what it will read itself. A panic in
	// Bundle is the parser's (an error of the read).
	Bundle func(b *Binary, bd Bundle)
}

// ReadHooked is ReadMetered calling h while it reads.
func ReadHooked(r io.ReaderAt, size int64, m *inflate.Meter, h Hooks) (b *Binary, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, formatErr(nil, "parser panic: %v", p)
		}
	}()
	format, err := sniffReader(r, size)
	if err != nil {
		return nil, err
	}
	var c *container
	if format == FormatELF {
		c, err = openELF(r, size, m)
	} else {
		c, err = openPE(r, size)
	}
	if err != nil {
		return nil, err
	}
	return decode(r, c, m, h)
}

func sniffReader(r io.ReaderAt, size int64) (Format, error) {
	head := make([]byte, max(0, min(size, 4)))
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	f, ok := Sniff(head)
	if !ok {
		return "", ErrNotBinary
	}
	return f, nil
}
