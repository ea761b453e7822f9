package xzra

import (
	"archive/tar"
	"io"
)

// Members walks the tar archive in the first size bytes of r and calls fn
// with each header and the offset in r where the member's data starts
// (its size is hdr.Size). archive/tar reads the headers, GNU long names
// and PAX records as it does for any stream, and skips member data by
// seeking (it reads only the last byte of each member, to notice a
// truncated archive), so over a Reader it costs the blocks holding
// headers, each decoded up to the header: 512 + roundup(size, 512) bytes
// of uncompressed space lie between one header and the next.
//
// The data of a sparse member (GNU or PAX sparse) is not its content: fn
// gets the tar.Reader, which reads the member's expanded content when fn
// needs it (vfs reads sparse members that way). fn's error ends the walk
// and is returned; so is a tar error, with io.EOF at the end not one.
func Members(r io.ReaderAt, size int64, fn func(hdr *tar.Header, off int64, tr *tar.Reader) error) error {
	sr := io.NewSectionReader(r, 0, size)
	tr := tar.NewReader(sr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		off, err := sr.Seek(0, io.SeekCurrent)
		if err != nil {
			return err
		}
		if err := fn(hdr, off, tr); err != nil {
			return err
		}
	}
}
