package kpack

import (
	"errors"
	"fmt"
)

// Sentinel errors for errors.Is. A *FormatError unwraps to one of the
// ErrBad*/ErrVersion/ErrTOC*/ErrZstd* sentinels (or, for a failed read, to the
// reader's own error); ErrLimit is returned on its own, wrapped with context.
var (
	// ErrBadMagic: the file is shorter than the runtime's 16-byte header read
	// or does not start with "KPAK" (KPACK_ERROR_INVALID_FORMAT).
	ErrBadMagic = errors.New("kpack: bad magic")
	// ErrVersion: the header version is not 1 (KPACK_ERROR_UNSUPPORTED_VERSION).
	ErrVersion = errors.New("kpack: unsupported version")
	// ErrTOCOffset: the header's TOC offset is at or past end of file
	// (KPACK_ERROR_INVALID_FORMAT).
	ErrTOCOffset = errors.New("kpack: TOC offset out of range")
	// ErrTOCParse: the TOC is not a MessagePack map, or a value the runtime
	// converts at open has the wrong type (KPACK_ERROR_MSGPACK_PARSE_FAILED).
	ErrTOCParse = errors.New("kpack: TOC does not parse")
	// ErrZstdIndex: the zstd-per-kernel blob or its frame chain is invalid
	// (KPACK_ERROR_INVALID_FORMAT or KPACK_ERROR_IO_ERROR at open).
	ErrZstdIndex = errors.New("kpack: invalid zstd frame index")
	// ErrLimit: the archive exceeds a limit of this reader (Options), not of
	// the runtime; the archive was not analysed.
	ErrLimit = errors.New("kpack: reader limit exceeded")
)

// FormatError reports an archive that the rocm-kpack runtime's kpack_open
// rejects, so the loader silently skips it. Offset is the absolute file
// offset of the offending bytes, Field names them (e.g. "header.magic",
// "zstd_size", "zstd.frames[2].size"), Code is the kpack_error_t kpack_open
// returns, and Err is the sentinel (or the underlying read error).
type FormatError struct {
	Offset int64
	Field  string
	Msg    string
	Code   Code
	Err    error
	// LegacyAborts is set when the fixed runtime fails the open here but
	// the legacy runtime throws instead, aborting the process (a TOC value
	// its conversion cannot take; SPEC 1).
	LegacyAborts bool
}

// Error formats the error as "kpack: <field> at offset N: <msg> (<CODE>)".
func (e *FormatError) Error() string {
	return fmt.Sprintf("kpack: %s at offset %d: %s (%s)", e.Field, e.Offset, e.Msg, e.Code.Short())
}

// Unwrap returns the sentinel or read error behind e.
func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(code Code, sentinel error, off int64, field, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Field: field, Msg: fmt.Sprintf(format, args...), Code: code, Err: sentinel}
}

// ProblemKind classifies a Problem.
type ProblemKind int

const (
	// ProblemMalformed is a structural defect (lint rule KPL005 family):
	// wrong or missing TOC values, ordinals or blobs outside their tables,
	// impossible sizes, arches the loader can never serve.
	ProblemMalformed ProblemKind = iota + 1
	// ProblemTarget is an arch string in gfx_arches or a toc entry that looks
	// wrong as a target ID (empty, whitespace, triple prefix, odd characters,
	// duplicate). Full target-ID validation is left to callers.
	ProblemTarget
)

// String returns "malformed" or "target".
func (k ProblemKind) String() string {
	switch k {
	case ProblemMalformed:
		return "malformed"
	case ProblemTarget:
		return "target"
	}
	return fmt.Sprintf("ProblemKind(%d)", int(k))
}

// Problem is a structural defect that does not stop the runtime from opening
// the archive but breaks (or risks) loading some or all of its kernels.
// Field is a path into the archive such as "toc[lib/x.so#0][gfx900].ordinal",
// "gfx_arches[1]", "blobs[3].size" or "compression_scheme"; Offset is the
// absolute file offset of the value (or of the enclosing item when absent).
type Problem struct {
	Kind   ProblemKind
	Field  string
	Offset int64
	Msg    string
}

// String formats the problem as "<field> (offset N): <msg>".
func (p Problem) String() string {
	return fmt.Sprintf("%s (offset %d): %s", p.Field, p.Offset, p.Msg)
}
