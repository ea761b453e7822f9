//go:build !cgo || !linux

package xzra

import (
	"errors"
	"io"
)

// HaveLiblzma reports whether liblzma.so.5 is loaded into the process;
// builds without cgo, or for systems other than Linux, never load it.
func HaveLiblzma() bool { return false }

type lzmaStream struct{}

func newLzma() (*lzmaStream, error) {
	return nil, errors.New("xzra: this build cannot load liblzma (it needs cgo on Linux)")
}

func (l *lzmaStream) reset(io.Reader, int64) error { return errors.New("xzra: no liblzma") }
func (l *lzmaStream) Read([]byte) (int, error)     { return 0, errors.New("xzra: no liblzma") }
func (l *lzmaStream) close()                       {}

// NewStreamReader fails: this build cannot load liblzma.
func NewStreamReader(io.Reader, int64) (io.ReadCloser, error) {
	return nil, errors.New("xzra: this build cannot load liblzma (it needs cgo on Linux)")
}
