//go:build cgo && linux

package xzra

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// kpl_stream has the layout of liblzma's lzma_stream (lzma/base.h, the
// same in every release 5.x: the ABI liblzma.so.5 keeps). Only
// next_in..total_out are touched here; the rest is liblzma's.
typedef struct {
	const uint8_t *next_in;
	size_t avail_in;
	uint64_t total_in;
	uint8_t *next_out;
	size_t avail_out;
	uint64_t total_out;
	const void *allocator;
	void *internal;
	void *reserved_ptr1, *reserved_ptr2, *reserved_ptr3, *reserved_ptr4;
	uint64_t reserved_int1, reserved_int2;
	size_t reserved_int3, reserved_int4;
	int reserved_enum1, reserved_enum2;
} kpl_stream;

static int (*kpl_stream_decoder)(kpl_stream *, uint64_t, uint32_t);
static int (*kpl_code)(kpl_stream *, int);
static void (*kpl_end)(kpl_stream *);
static uint32_t (*kpl_version_number)(void);

// kpl_open loads liblzma.so.5 and returns its version number
// (lzma_version_number), or 0 when it cannot be loaded.
static uint32_t kpl_open(void) {
	void *h = dlopen("liblzma.so.5", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		return 0;
	}
	kpl_stream_decoder = (int (*)(kpl_stream *, uint64_t, uint32_t))dlsym(h, "lzma_stream_decoder");
	kpl_code = (int (*)(kpl_stream *, int))dlsym(h, "lzma_code");
	kpl_end = (void (*)(kpl_stream *))dlsym(h, "lzma_end");
	kpl_version_number = (uint32_t (*)(void))dlsym(h, "lzma_version_number");
	if (!kpl_stream_decoder || !kpl_code || !kpl_end || !kpl_version_number) {
		return 0;
	}
	return kpl_version_number();
}

static kpl_stream *kpl_new(void) { return (kpl_stream *)calloc(1, sizeof(kpl_stream)); }

// kpl_start (re)initialises s as a decoder of one .xz stream: re-using s
// keeps liblzma's dictionary when the next stream's is the same size.
static int kpl_start(kpl_stream *s, uint64_t memlimit, uint32_t flags) { return kpl_stream_decoder(s, memlimit, flags); }

// kpl_run decodes from in into out; the pointers live only for the call
// (cgo's rule for Go memory), so s keeps none of them.
static int kpl_run(kpl_stream *s, const uint8_t *in, size_t nin, uint8_t *out, size_t nout, int finish,
		size_t *used_in, size_t *used_out) {
	s->next_in = in;
	s->avail_in = nin;
	s->next_out = out;
	s->avail_out = nout;
	int ret = kpl_code(s, finish ? 3 : 0); // LZMA_FINISH : LZMA_RUN
	*used_in = nin - s->avail_in;
	*used_out = nout - s->avail_out;
	s->next_in = NULL;
	s->avail_in = 0;
	s->next_out = NULL;
	s->avail_out = 0;
	return ret;
}

static void kpl_free(kpl_stream *s) {
	kpl_end(s);
	free(s);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"unsafe"
)

// liblzmaVersion is the version number of the liblzma.so.5 loaded
// (major*10000000 + minor*10000 + patch*10 + stability), or 0.
var liblzmaVersion = sync.OnceValue(func() uint32 { return uint32(C.kpl_open()) })

// HaveLiblzma reports whether liblzma.so.5 of XZ Utils 5.2 or newer is
// loaded into the process (dlopen, once), which then decodes the blocks
// of streams read in place (Options.Liblzma). It is false in builds
// without cgo.
func HaveLiblzma() bool { return liblzmaVersion() >= 50020000 }

// lzmaStream is one liblzma decoder, fed a block wrapped as a stream of
// its own (soloStream): liblzma checks the block's check and sizes.
type lzmaStream struct {
	s      *C.kpl_stream
	src    io.Reader
	in     []byte
	lo, hi int   // the unread input in[lo:hi]
	eof    bool  // src is exhausted
	end    bool  // the stream ended
	err    error // liblzma's error, returned by every later Read
	limit  int64 // NewStreamReader's maxDict, named in its error
}

// lzmaInput is the input buffer: the file is read 128 KiB at a time.
const lzmaInput = 128 << 10

// newLzma returns a decoder, or an error where liblzma did not load.
func newLzma() (*lzmaStream, error) {
	if !HaveLiblzma() {
		return nil, errors.New("xzra: liblzma.so.5 (XZ Utils 5.2 or newer) is not loaded")
	}
	s := C.kpl_new()
	if s == nil {
		return nil, errors.New("xzra: out of memory for a liblzma decoder")
	}
	liveLzma.Add(1)
	return &lzmaStream{s: s, in: make([]byte, lzmaInput)}, nil
}

// reset points l at the stream src, whose dictionary is dict bytes.
func (l *lzmaStream) reset(src io.Reader, dict int64) error {
	return l.start(src, dict, lzmaTellUnsupportedCheck)
}

// lzma_stream_decoder's flags (lzma/container.h).
const (
	// lzmaTellUnsupportedCheck: a stream whose check ID is reserved
	// (one liblzma cannot verify) is LZMA_UNSUPPORTED_CHECK, an error
	// here as it is for the Go decoders, rather than decoded unverified.
	lzmaTellUnsupportedCheck = 0x02
	// lzmaConcatenated: decode streams one after the other, with stream
	// padding between them, as xz -d does.
	lzmaConcatenated = 0x08
)

// start points l at src, with dictionaries of at most maxDict bytes and
// lzma_stream_decoder's flags.
func (l *lzmaStream) start(src io.Reader, maxDict int64, flags uint32) error {
	l.src, l.lo, l.hi, l.eof, l.end, l.err = src, 0, 0, false, false, nil
	if ret := C.kpl_start(l.s, C.uint64_t(maxDict+decoderOverhead), C.uint32_t(flags)); ret != 0 {
		return lzmaErr(int(ret))
	}
	return nil
}

// NewStreamReader returns a reader of the .xz file r decompressed front to
// back by liblzma (concatenated streams and stream padding as xz -d
// reads them) with dictionaries of at most maxDict bytes (a larger one is
// an error saying so), or an error where liblzma did not load
// (HaveLiblzma). Close frees liblzma's decoder; the reader's errors are
// liblzma's, worded as xz words them.
func NewStreamReader(r io.Reader, maxDict int64) (io.ReadCloser, error) {
	l, err := newLzma()
	if err != nil {
		return nil, err
	}
	l.limit = maxDict
	if err := l.start(r, maxDict, lzmaConcatenated|lzmaTellUnsupportedCheck); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// Close frees the decoder; reads after it fail.
func (l *lzmaStream) Close() error {
	l.close()
	return nil
}

// Read decodes the stream's bytes into p; io.EOF follows its end, once
// liblzma has checked the block's check, the index and the footer.
func (l *lzmaStream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		switch {
		case l.err != nil:
			return 0, l.err
		case l.end:
			return 0, io.EOF
		}
		if err := l.fill(); err != nil {
			return 0, err
		}
		var usedIn, usedOut C.size_t
		in := unsafe.Pointer(nil)
		if l.hi > l.lo {
			in = unsafe.Pointer(&l.in[l.lo])
		}
		ret := C.kpl_run(l.s, (*C.uint8_t)(in), C.size_t(l.hi-l.lo), (*C.uint8_t)(unsafe.Pointer(&p[0])), C.size_t(len(p)),
			boolInt(l.eof), &usedIn, &usedOut)
		l.lo += int(usedIn)
		switch {
		case ret == 1: // LZMA_STREAM_END
			l.end = true
		case ret == 6 && l.limit > 0: // LZMA_MEMLIMIT_ERROR
			l.err = &externalErr{msg: fmt.Sprintf("liblzma: the stream's dictionary needs more than the %d MiB of memory allowed (--deep-memory)", l.limit>>20)}
			return int(usedOut), l.err
		case ret != 0:
			l.err = lzmaErr(int(ret))
			return int(usedOut), l.err
		case usedOut == 0 && usedIn == 0 && l.eof:
			l.err = &externalErr{msg: "liblzma: unexpected end of input"}
			return 0, l.err
		}
		if usedOut > 0 {
			return int(usedOut), nil
		}
	}
}

// fill reads more input once all of it is used.
func (l *lzmaStream) fill() error {
	if l.lo < l.hi || l.eof {
		return nil
	}
	n, err := io.ReadFull(l.src, l.in)
	l.lo, l.hi = 0, n
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		l.eof = true
	case err != nil:
		return err
	}
	return nil
}

// close frees liblzma's decoder and its dictionary.
func (l *lzmaStream) close() {
	if l.s != nil {
		C.kpl_free(l.s)
		l.s = nil
		liveLzma.Add(-1)
	}
	if l.err == nil {
		l.err = ErrClosed
	}
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// lzmaErr is liblzma's lzma_ret as an *externalErr (a decoder error),
// worded as xz words it.
func lzmaErr(ret int) error {
	msg, ok := map[int]string{
		3: "unsupported type of integrity check (the data cannot be verified)",
		5: "cannot allocate memory", 6: "memory usage limit reached", 7: "file format not recognized",
		8: "unsupported options", 9: "compressed data is corrupt", 10: "unexpected end of input",
	}[ret]
	if !ok {
		msg = fmt.Sprintf("error %d", ret)
	}
	return &externalErr{msg: "liblzma: " + msg}
}
