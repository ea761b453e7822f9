package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new report")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(got) != "new report" || fi.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v", got, fi.Mode())
	}
	// Through a symlink, the link's target is replaced and the link stays.
	link := filepath.Join(dir, "link.txt")
	os.Symlink("report.txt", link)
	if err := WriteFile(link, []byte("via link")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "via link" {
		t.Errorf("target %q", got)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("symlink replaced")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

// A failed write (here: the folder is gone) leaves no temporary file and
// names the requested file.
func TestWriteFileFailureKeepsOld(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing", "report.txt")
	err := WriteFile(p, []byte("x"))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != p {
		t.Errorf("err = %v", err)
	}
	// /dev/null is written in place, never replaced.
	if err := WriteFile(os.DevNull, []byte("x")); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
}

// A FIFO opens without waiting for a writer and is refused.
func TestOpenRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	if _, _, err := Open(p); !errors.Is(err, ErrNotRegular) {
		t.Errorf("err = %v", err)
	}
}

// TestReadFile: a file up to the limit is read whole; one byte more is a
// *TooLargeError; a FIFO fails at once instead of blocking.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(p, 5); err != nil || string(data) != "12345" {
		t.Errorf("ReadFile(5) = %q, %v", data, err)
	}
	var big *TooLargeError
	if _, err := ReadFile(p, 4); !errors.As(err, &big) || big.Limit != 4 || err.Error() != "larger than 4 bytes" {
		t.Errorf("ReadFile(4) error %v, want larger than 4 bytes", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := ReadFile(fifo, 5); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(fifo) error %v, want ErrNotRegular", err)
	}
}
