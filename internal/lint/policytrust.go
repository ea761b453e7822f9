package lint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Policy discovery reads a policies.yaml nobody but a trusted user could
// have put there, as git's safe.directory refuses a repository another
// user owns: a waiver planted in /tmp must not pass a check of a build
// under /tmp. A policies.yaml in a folder discovery looks in (the working
// directory, the input's folder, its parents) is skipped, and the report
// says why, when
//   - the folder is writable by every user (mode o+w, sticky or not);
//   - the name (a file or a symlink) is owned by neither the current user,
//     root, nor the folder's owner (who could replace anything below it
//     anyway, the input too when it is the input's folder or a parent; the
//     working directory is the user's choice): a CI checkout, owned by the
//     runner user, stays trusted when a container runs the check as root;
//   - it is not a regular file: a FIFO, device, socket, folder, a symlink
//     to one of those or to nothing (it is never opened).
// --policy FILE reads FILE whatever its folder and owner.

// policyTrust holds what the checks read of the system, replaceable in
// tests (which cannot create files owned by another user).
type policyTrust struct {
	uid   int                                  // the current user; -1 where there are no user ids
	lstat func(string) (fs.FileInfo, error)    // os.Lstat
	stat  func(string) (fs.FileInfo, error)    // os.Stat
	owner func(fs.FileInfo) (uid int, ok bool) // ownerOf
}

// systemTrust is the policyTrust of the running process.
func systemTrust() policyTrust {
	return policyTrust{uid: os.Getuid(), lstat: os.Lstat, stat: os.Stat, owner: ownerOf}
}

// policyTrustFor is the policyTrust FindPolicy uses.
var policyTrustFor = systemTrust

// skip is a policies.yaml discovery found and did not read.
type skip struct {
	file, reason string // as stderr names them: the path as found
	reported     string // as reports name it: no machine path
	regular      bool   // a regular file, which --policy would read
}

// reason says why a policies.yaml is not read, given how to name its
// folder.
type reason func(folder string) string

// check looks for dir/policies.yaml: found says it is there, a regular
// file; why, when not nil, says why it may not be read. Not found and no
// why: there is none.
func (tr policyTrust) check(dir string) (found bool, why reason) {
	p := filepath.Join(dir, DefaultPolicy)
	lfi, err := tr.lstat(p)
	if err != nil {
		return false, nil
	}
	fi := lfi
	if lfi.Mode()&fs.ModeSymlink != 0 {
		if fi, err = tr.stat(p); err != nil {
			return false, fixed("a symlink to nothing readable, not a regular file")
		}
	}
	if !fi.Mode().IsRegular() {
		what := kindOf(fi.Mode())
		if fi != lfi {
			what = "a symlink to " + what
		}
		return false, fixed(what + ", not a regular file")
	}
	dfi, err := tr.stat(dir)
	if err != nil {
		return false, fixed(fmt.Sprintf("its folder does not stat (%v)", err))
	}
	if everyoneWrites(dfi) {
		return true, func(folder string) string { return folder + " is writable by every user" }
	}
	if uid, ok := tr.foreign(lfi, dfi); ok {
		return true, func(folder string) string {
			return fmt.Sprintf("owned by user %d, not by you (user %d), root or the owner of %s", uid, tr.uid, folder)
		}
	}
	return true, nil
}

// fixed is a reason that does not name the folder.
func fixed(s string) reason { return func(string) string { return s } }

// foreign returns the owner of fi when that is neither the current user,
// root nor the owner of its folder dfi; ok is false when it is one of
// them, or the system keeps no owners.
func (tr policyTrust) foreign(fi, dfi fs.FileInfo) (uid int, ok bool) {
	uid, has := tr.owner(fi)
	if !has || uid == tr.uid || uid == 0 {
		return 0, false
	}
	if duid, has := tr.owner(dfi); has && duid == uid {
		return 0, false
	}
	return uid, true
}

// kindOf names a file type that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
