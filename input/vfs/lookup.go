package vfs

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Lookup returns the entry at p after overlay, following symlinks in every
// component, including the last. Relative link targets resolve against the
// link's directory; absolute targets resolve against the tree root (the
// tree is treated as the root of the installed system, like a chroot).
//
// The returned string is the real path, relative to the root, with every
// link resolved: what the runtime's /proc/self/maps would show for the file.
// Errors wrap fs.ErrNotExist (nothing there, or a dangling link),
// ErrSymlinkLoop (more than MaxLinkDepth links: a cycle), ErrOutsideRoot
// (".." above the root), ErrNotDir or ErrIsDir (p names a directory; the
// real path is still returned).
func (t *Tree) Lookup(p string) (*Entry, string, error) {
	real, err := t.resolve(p, true)
	if err != nil {
		return nil, real, err
	}
	if e := t.files[real]; e != nil {
		return e, real, nil
	}
	return nil, real, fmt.Errorf("vfs: lookup %s: %w", p, ErrIsDir)
}

// Exists reports whether p resolves (symlinks followed) to a file or
// directory.
func (t *Tree) Exists(p string) bool {
	_, err := t.resolve(p, true)
	return err == nil
}

// RealPath resolves every symlink in p and returns the real path of the
// file or directory it names, with Lookup's errors.
func (t *Tree) RealPath(p string) (string, error) { return t.resolve(p, true) }

// resolve walks p component by component from the root. With followLast
// false a symlink in the last component is not followed (lstat). It
// returns the real path ("." for the root) of an existing node.
func (t *Tree) resolve(p string, followLast bool) (string, error) {
	q := p
	for links := 0; links <= MaxLinkDepth; links++ {
		real, ok, link := t.resolveClean(q, followLast)
		if ok {
			return real, nil
		}
		if link == nil && real == p && q == p {
			return p, &notExist{p} // walk's answer, without walking
		}
		if link == nil || strings.HasPrefix(link.Link, "/") {
			break
		}
		// A symlink last: its target, relative to its folder.
		if d := path.Dir(q); d != "." {
			q = d + "/" + link.Link
		} else {
			q = link.Link
		}
	}
	return t.walk(p, followLast)
}

// notExist is walk's error for a clean path whose folders are all
// directories of the tree and whose last component is nothing: the
// resolver asks for many such paths (every search path on every agent),
// so it is formatted only when read.
type notExist struct{ p string }

func (e *notExist) Error() string {
	return fmt.Sprintf("vfs: lookup %s: %s: %v", e.p, e.p, fs.ErrNotExist)
}

func (e *notExist) Unwrap() error { return fs.ErrNotExist }

// walk is resolve without its fast path.
func (t *Tree) walk(p string, followLast bool) (string, error) {
	pending := splitPath(p)
	real := "."
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		if c == "." || c == "" {
			continue
		}
		if c == ".." {
			if real == "." {
				return real, fmt.Errorf("vfs: lookup %s: %w", p, ErrOutsideRoot)
			}
			real = path.Dir(real)
			continue
		}
		next := path.Join(real, c)
		if e := t.files[next]; e != nil {
			if e.IsLink() && (len(pending) > 0 || followLast) {
				links++
				if links > MaxLinkDepth {
					return next, fmt.Errorf("vfs: lookup %s: %w", p, ErrSymlinkLoop)
				}
				if strings.HasPrefix(e.Link, "/") {
					real = "."
				}
				pending = append(splitPath(e.Link), pending...)
				continue
			}
			if !e.IsLink() && len(pending) > 0 && hasName(pending) {
				return next, fmt.Errorf("vfs: lookup %s: %s: %w", p, next, ErrNotDir)
			}
			real = next
			continue
		}
		if !t.dirs[next] {
			return next, fmt.Errorf("vfs: lookup %s: %s: %w", p, next, fs.ErrNotExist)
		}
		real = next
	}
	return real, nil
}

// resolveClean is resolve's answer without allocating for a clean
// relative path (no "", "." or ".." component) whose folders are all
// directories of the tree, not symlinks, and whose last component is not
// a symlink it must follow: the path itself. ok is false for any other
// path; link is then the symlink last in p that resolve must follow, if
// that is why (resolve follows it to a path of the same kind, else walks
// p). Not ok with real p and no link: p is such a path and names nothing
// (its folders are directories of the tree).
func (t *Tree) resolveClean(p string, followLast bool) (real string, ok bool, link *Entry) {
	if p == "" || p == "." {
		return ".", p == ".", nil
	}
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if c := p[start:i]; c == "" || c == "." || c == ".." {
			return "", false, nil
		}
		if i == len(p) {
			break
		}
		if q := p[:i]; t.files[q] != nil || !t.dirs[q] {
			return "", false, nil
		}
		start = i + 1
	}
	if e := t.files[p]; e != nil {
		if e.IsLink() && followLast {
			return "", false, e
		}
		return p, true, nil
	}
	return p, t.dirs[p], nil // not ok: p is nothing (real p, no link)
}

// hasName reports whether components hold anything but "." and "": a file
// followed only by "/" or "/." is still the file (lenient, like path.Clean).
func hasName(cs []string) bool {
	for _, c := range cs {
		if c != "." && c != "" {
			return true
		}
	}
	return false
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
