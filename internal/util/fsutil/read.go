package fsutil

import (
	"bytes"
	"fmt"
	"io"
)

// TooLargeError is returned by ReadFile for a file of more than Limit
// bytes. Its text does not name the file: callers add the name.
type TooLargeError struct {
	Limit int64 // bytes
}

func (e *TooLargeError) Error() string { return fmt.Sprintf("larger than %d bytes", e.Limit) }

// ReadFile reads the regular file name (opened with Open: a FIFO or
// device never blocks) whole if it holds at most limit bytes; it reads
// at most limit+1 bytes, whatever the file declares, and fails with a
// *TooLargeError past limit.
func ReadFile(name string, limit int64) ([]byte, error) {
	f, _, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if st.Size() > limit {
			return nil, &TooLargeError{Limit: limit}
		}
		buf.Grow(int(st.Size()) + bytes.MinRead) // read in place: no doubling copies of a large file
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return data, nil
}
