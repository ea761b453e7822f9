// Package kpack reads .kpack archives (format version 1) as the rocm-kpack
// runtime does: a 64-byte header, blob data, and a MessagePack table of
// contents (TOC) at the offset the header names.
package kpack

import "fmt"

// Code is a kpack_error_t value as returned by the rocm-kpack runtime
// (shared/kpack/include/kpack.h). Users see it as
// "kpack_load_code_object failed with error: N".
type Code int

// The kpack_error_t values, in the runtime's numbering.
const (
	Success             Code = 0
	InvalidArgument     Code = 1
	FileNotFound        Code = 2
	InvalidFormat       Code = 3
	UnsupportedVersion  Code = 4
	KernelNotFound      Code = 5
	DecompressionFailed Code = 6
	OutOfMemory         Code = 7
	NotImplemented      Code = 8
	IOError             Code = 9
	MsgpackParseFailed  Code = 10
	PathDiscoveryFailed Code = 11
	InvalidMetadata     Code = 12
	ArchiveNotFound     Code = 13
	ArchNotFound        Code = 14
)

// Abort is not a kpack_error_t: it stands for a load that never returns
// because the process aborts on an uncaught C++ exception. The legacy
// runtime throws std::bad_cast from kpack_open on a mistyped or
// out-of-range TOC value; both runtimes throw std::bad_alloc from
// kpack_get_kernel on a kernel size no host can allocate (AbortSize).
// SPEC 1.
const Abort Code = -1

// AbortSize is the smallest blob size (scheme none) or original_size
// (zstd-per-kernel) whose fetch aborts the process: kpack_get_kernel sizes
// its buffer from the TOC before reading, and 2^47 bytes is the whole
// user address space of an x86-64 process, so no host can allocate it
// (std::bad_alloc, uncaught; SPEC 1 "sizes near 2^62"). Smaller oversized
// kernels are reported (KPL005) but not simulated as aborts.
const AbortSize = 1 << 47

var codeNames = [...]string{
	"KPACK_SUCCESS",
	"KPACK_ERROR_INVALID_ARGUMENT",
	"KPACK_ERROR_FILE_NOT_FOUND",
	"KPACK_ERROR_INVALID_FORMAT",
	"KPACK_ERROR_UNSUPPORTED_VERSION",
	"KPACK_ERROR_KERNEL_NOT_FOUND",
	"KPACK_ERROR_DECOMPRESSION_FAILED",
	"KPACK_ERROR_OUT_OF_MEMORY",
	"KPACK_ERROR_NOT_IMPLEMENTED",
	"KPACK_ERROR_IO_ERROR",
	"KPACK_ERROR_MSGPACK_PARSE_FAILED",
	"KPACK_ERROR_PATH_DISCOVERY_FAILED",
	"KPACK_ERROR_INVALID_METADATA",
	"KPACK_ERROR_ARCHIVE_NOT_FOUND",
	"KPACK_ERROR_ARCH_NOT_FOUND",
}

// String returns the runtime's enum name, e.g. "KPACK_ERROR_KERNEL_NOT_FOUND",
// and "PROCESS_ABORT" for Abort.
func (c Code) String() string {
	if c == Abort {
		return "PROCESS_ABORT"
	}
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("KPACK_ERROR_%d", int(c))
}

// Short returns the name without its "KPACK_ERROR_" prefix, e.g.
// "KERNEL_NOT_FOUND"; Success gives "SUCCESS" and Abort "PROCESS_ABORT".
func (c Code) Short() string {
	s := c.String()
	switch c {
	case Success:
		return "SUCCESS"
	case Abort:
		return s
	}
	return s[len("KPACK_ERROR_"):]
}
