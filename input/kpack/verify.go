package kpack

import (
	"errors"
	"fmt"
	"io"
)

// VerifyOptions bounds Verify. MaxKernelSize (bytes) defaults to the
// archive's Options.MaxKernelSize.
type VerifyOptions struct {
	MaxKernelSize uint64
}

// Failure is one toc entry that kpack_get_kernel would fail to serve, with
// the kpack_error_t it would return.
type Failure struct {
	Key, Arch string
	Code      Code
	Err       error
}

// VerifyResult is the outcome of Verify. Problems holds only defects Open
// cannot see (frames that do not decode to original_size, none blobs whose
// size differs from original_size); Failures lists every entry whose fetch
// fails, in sorted key/arch order. Kernels counts entries checked, BytesRead
// the bytes read from the archive, Decoded the kernel bytes produced.
type VerifyResult struct {
	Problems []Problem
	Failures []Failure
	Kernels  int
	BytesRead,
	Decoded int64
}

type fetchKey struct {
	ordinal uint32
	size    uint64
}

type fetchOutcome struct {
	code Code
	err  error
	n    int
}

// Verify reads every blob or frame the TOC references (for `check --deep`),
// decoding each (ordinal, original_size) pair once with one reused decoder
// and buffer, so memory stays within MaxKernelSize plus one frame. The zstd
// frame chain itself is checked against zstd_size by Open or IndexFrames (a
// chain past zstd_size is a FormatError, bytes after the last frame a
// Problem).
//
// An archive opened with Options.SkipFrameChain has its frame chain walked
// first (IndexFrames); when that fails, every entry fails with the open's
// Code and nothing else is read.
func (a *Archive) Verify(r io.ReaderAt, opt VerifyOptions) VerifyResult {
	var res VerifyResult
	if err := a.IndexFrames(r); err != nil {
		for _, key := range a.KernelKeys() {
			for _, arch := range a.KernelArches(key) {
				res.Kernels++
				res.Failures = append(res.Failures, Failure{Key: key, Arch: arch, Code: openCode(err), Err: err})
			}
		}
		return res
	}
	f := a.newFetcher(r, opt.MaxKernelSize)
	defer f.close()
	seen := map[fetchKey]fetchOutcome{}
	for _, key := range a.KernelKeys() {
		for _, arch := range a.KernelArches(key) {
			e, _ := a.Lookup(key, arch)
			res.Kernels++
			k := fetchKey{e.Ordinal, e.OriginalSize}
			o, ok := seen[k]
			if !ok {
				out, code, err := f.fetch(e)
				o = fetchOutcome{code, err, len(out)}
				seen[k] = o
				res.Decoded += int64(len(out))
			}
			a.record(&res, key, arch, e, o)
		}
	}
	res.BytesRead = f.read
	return res
}

// record adds the failure and deep problems for one entry.
func (a *Archive) record(res *VerifyResult, key, arch string, e Entry, o fetchOutcome) {
	field := fmt.Sprintf("toc[%s][%s]", key, arch)
	if o.code != Success {
		res.Failures = append(res.Failures, Failure{Key: key, Arch: arch, Code: o.code, Err: o.err})
		if o.code == DecompressionFailed {
			res.Problems = append(res.Problems, Problem{Kind: ProblemMalformed, Field: field,
				Offset: a.dataOffset(e), Msg: fmt.Sprintf("fetch gives DECOMPRESSION_FAILED: %v", o.err)})
		}
		return
	}
	if uint64(o.n) != e.OriginalSize {
		// Only scheme none gets here (a zstd frame must decode to exactly
		// original_size): the runtime ignores original_size and serves the
		// blob as stored.
		res.Problems = append(res.Problems, Problem{Kind: ProblemMalformed, Field: field + ".original_size",
			Offset: a.dataOffset(e), Msg: NoneSizeMismatch(o.n, e.OriginalSize)})
	}
}

// dataOffset is the file offset of the entry's blob or frame (0 if none).
func (a *Archive) dataOffset(e Entry) int64 {
	if a.EffectiveScheme() == SchemeZstd && int(e.Ordinal) < len(a.frames) {
		return int64(a.frames[e.Ordinal].off)
	}
	if int(e.Ordinal) < len(a.Blobs) {
		return int64(a.Blobs[e.Ordinal].Offset)
	}
	return 0
}

// NoneSizeMismatch describes a scheme none blob whose size differs from the
// entry's original_size. The runtime ignores original_size for scheme none:
// the load succeeds and returns the stored bytes.
func NoneSizeMismatch(blob int, originalSize uint64) string {
	return fmt.Sprintf("blob is %d bytes, original_size %d; the runtime ignores original_size for scheme none "+
		"and serves the %d stored bytes", blob, originalSize, blob)
}

// openCode is the kpack_error_t of an open error: the *FormatError's Code,
// else IO_ERROR.
func openCode(err error) Code {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Code
	}
	return IOError
}
