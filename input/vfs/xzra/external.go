package xzra

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Decoding blocks with XZ Utils' xz program. liblzma decodes at about
// 1.5 to 3 times the speed of github.com/xi2/xz (the package
// benchmarks; librocblas0's Tensile blocks 3x), so where an xz of XZ
// Utils 5.2 or newer is found, blocks of at least minExternal compressed
// bytes are decoded by one xz process each, as Docker's pkg/archive
// decodes xz streams: the block, wrapped as a stream of its own
// (soloStream), goes in on stdin, its bytes come out on stdout, and xz
// verifies its check and sizes as it goes. The process is killed when
// the block is dropped before its end.

// minExternal is the smallest block (compressed bytes) handed to xz:
// starting a process costs about a millisecond, what the Go decoder
// takes for some 64 KiB of output. A variable for the tests.
var minExternal int64 = 256 << 10

// liveProcs counts the xz processes started and not yet waited for (the
// tests check that Close leaves none).
var liveProcs atomic.Int64

// FindXZ returns the absolute path of the xz program of XZ Utils (5.2 or
// newer, the first with --single-stream and -T) found on PATH, or "" when
// there is none, it is older, or it is found through a relative PATH
// entry (exec.LookPath refuses those). It runs xz --robot --version once
// per process.
func FindXZ() string { return findXZ() }

// AutoDecoder is the decoder --xz auto picks: liblzma where it loads
// (HaveLiblzma), else XZ Utils' xz found on PATH (FindXZ, "" for none:
// the built-in decoder). Both are looked for once per process.
func AutoDecoder() (liblzma bool, xz string) {
	if HaveLiblzma() {
		return true, ""
	}
	return false, FindXZ()
}

var findXZ = sync.OnceValue(func() string {
	path, err := exec.LookPath("xz")
	if err != nil {
		return ""
	}
	if CheckXZ(path) != nil {
		return ""
	}
	return path
})

// CheckXZ runs path --robot --version and returns an error unless it is
// XZ Utils 5.2 or newer. The error does not repeat path.
func CheckXZ(path string) error {
	cmd := exec.Command(path, "--robot", "--version")
	cmd.Env = []string{"LC_ALL=C"}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("xz --robot --version: %v", withoutPath(err))
	}
	for _, line := range strings.Split(string(out), "\n") {
		v, ok := strings.CutPrefix(line, "XZ_VERSION=")
		if !ok {
			continue
		}
		// XZ_VERSION is major*10000000 + minor*10000 + patch*10 + stability.
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err == nil && n >= 50020000 {
			return nil
		}
		return fmt.Errorf("XZ Utils %q; 5.2 or newer is needed", strings.TrimSpace(v))
	}
	return errors.New("xz --robot --version names no XZ Utils version")
}

// withoutPath is err without the program's path that exec and os put in
// their errors.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// procBuffers is what an xz process holds besides its dictionary: its
// buffers and code (about 1 MiB) and the pipe (pipeSize at most).
const procBuffers = 2 << 20

// xzProc is one xz process decoding one block: Read gives its stdout.
type xzProc struct {
	cmd    *exec.Cmd
	out    *os.File
	errs   limitedBuffer
	ended  bool
	waited error
}

// externalErr is xz's own complaint about a block (its stderr), a
// decoder error like those of the Go decoder.
type externalErr struct{ msg string }

func (e *externalErr) Error() string { return e.msg }

// decoderOverhead is what liblzma (in the process or in an xz process)
// may use besides a dictionary: its memory limit is the dictionary plus
// this.
const decoderOverhead = 16 << 20

// startExternal starts xz on block i (header h) of the file in r.
func (ix *Index) startExternal(xz string, r io.ReaderAt, i int, h blockHeader) (*decoder, error) {
	p, err := startXZ(xz, ix.soloStream(r, i, h), h.dict, "--single-stream")
	if err != nil {
		return nil, err
	}
	return &decoder{z: p, proc: p, dict: procBuffers, full: h.dict + procBuffers}, nil
}

// startXZ starts xz decoding stdin with dictionaries of at most maxDict
// bytes, with the extra arguments.
func startXZ(xz string, stdin io.Reader, maxDict int64, extra ...string) (*xzProc, error) {
	args := append([]string{"--decompress", "--stdout", "--format=xz", "--threads=1",
		"--memlimit-decompress=" + strconv.FormatInt(maxDict+decoderOverhead, 10)}, extra...)
	cmd := exec.Command(xz, args...)
	cmd.Env = []string{"LC_ALL=C"} // no XZ_OPT or XZ_DEFAULTS, messages in English
	cmd.Stdin = stdin
	p := &xzProc{cmd: cmd}
	cmd.Stderr = &p.errs
	out, w, err := xzPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close() // the child's now
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("xzra: starting %s: %v", xz, withoutPath(err))
	}
	p.out = out
	liveProcs.Add(1)
	return p, nil
}

// NewExternalStreamReader returns a reader of the .xz file r decompressed
// front to back by the xz program of XZ Utils at path xz (CheckXZ), with
// concatenated streams and padding as xz -d reads them, with dictionaries
// of at most maxDict bytes. Close kills the process if it is still
// running; the reader's errors at the end are xz's own words.
func NewExternalStreamReader(xz string, r io.Reader, maxDict int64) (io.ReadCloser, error) {
	p, err := startXZ(xz, r, maxDict)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Close stops the process (killed if it has not ended).
func (p *xzProc) Close() error {
	p.close()
	return nil
}

// Read reads the block's bytes from xz's stdout. At their end it waits
// for xz: an exit status other than 0 is an *externalErr with what xz
// said.
func (p *xzProc) Read(b []byte) (int, error) {
	if p.ended {
		return 0, p.result()
	}
	batch(p.out, len(b))
	n, err := p.out.Read(b)
	if err == io.EOF {
		p.ended = true
		p.waited = p.cmd.Wait()
		liveProcs.Add(-1)
		p.out.Close()
		return n, p.result()
	}
	return n, err
}

func (p *xzProc) result() error {
	if p.waited == nil {
		return io.EOF
	}
	msg := strings.TrimSpace(p.errs.String()) // "xz: (stdin): Compressed data is corrupt"
	if msg == "" {
		msg = "xz: " + p.waited.Error()
	}
	return &externalErr{msg: msg}
}

// close kills xz unless it has ended, and waits for it.
func (p *xzProc) close() {
	if p.ended {
		return
	}
	p.ended = true
	p.out.Close()
	p.cmd.Process.Kill()
	p.waited = p.cmd.Wait()
	liveProcs.Add(-1)
	if p.waited == nil {
		p.waited = errors.New("killed")
	}
}

// limitedBuffer keeps the first 1 KiB written to it.
type limitedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := 1024 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.ToValidUTF8(l.b.String(), "?")
}
