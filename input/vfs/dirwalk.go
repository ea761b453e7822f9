package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// loadDir walks name without following symlinks; hidden directories such
// as .kpack are included. Each directory is opened relative to its parent
// (an os.Root per level), so a tree N folders deep costs N opens, not N
// walks from the top. Unreadable subdirectories and special files
// (devices, sockets, pipes) become Problems. The folders are listed on
// GOMAXPROCS goroutines (dirWalker); the tree does not depend on how.
func loadDir(name string, c *collector) (backend, error) {
	root, err := os.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	b := &dirBackend{root: root, dirs: map[string]*os.Root{".": root}}
	w := &dirWalker{b: b}
	w.cond = sync.NewCond(&w.mu)
	top := &walkNode{}
	if err := w.list(top, &dirRef{root: root, p: "."}); err != nil {
		b.close()
		return nil, err
	}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) - 1 {
		wg.Go(w.work)
	}
	w.work()
	wg.Wait()
	top.flatten(c)
	return b, nil
}

// dirWalker lists the folders of a directory input as jobs taken by
// GOMAXPROCS workers, last pushed first (so the open folders are about
// those of one path from the top, as in a walk). Each folder's listing is
// a walkNode; flatten then puts the nodes back in the order of a walk
// that descends into each subfolder where its name sorts.
type dirWalker struct {
	b       *dirBackend
	mu      sync.Mutex // guards jobs, pending, and b.dirs and b.links while the walk runs
	cond    *sync.Cond // signalled when a job is pushed or the last one ends
	jobs    []dirJob
	pending int // jobs pushed and not finished
}

// dirJob is a subfolder to list: its name in its parent folder, which
// stays open until the job has opened it (dirRef).
type dirJob struct {
	n      *walkNode
	parent *dirRef
	name   string
	p      string
}

// dirRef is an open folder and the jobs that still need it open: its own
// listing, and each subfolder job until it has opened its folder. The
// last to let go keeps it in b.dirs (up to maxOpenDirs) or closes it.
type dirRef struct {
	root *os.Root
	p    string
	refs atomic.Int32
}

// walkNode is what one folder's listing found: its files, its own
// problems, and its subfolders with where each falls among them.
type walkNode struct {
	c    collector
	subs []walkSub
}

// walkSub is a subfolder and the lengths of its parent's entries, dirs
// and problems when the listing reached it.
type walkSub struct {
	node                    *walkNode
	entries, dirs, problems int
}

// work runs jobs until none is left.
func (w *dirWalker) work() {
	for {
		w.mu.Lock()
		for len(w.jobs) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if len(w.jobs) == 0 {
			w.mu.Unlock()
			return
		}
		j := w.jobs[len(w.jobs)-1]
		w.jobs = w.jobs[:len(w.jobs)-1]
		w.mu.Unlock()
		w.run(j)
		w.mu.Lock()
		if w.pending--; w.pending == 0 {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

func (w *dirWalker) push(j dirJob) {
	j.parent.refs.Add(1)
	w.mu.Lock()
	w.jobs = append(w.jobs, j)
	w.pending++
	w.mu.Unlock()
	w.cond.Signal()
}

// run opens a subfolder in its parent and lists it.
func (w *dirWalker) run(j dirJob) {
	sub, err := j.parent.root.OpenRoot(j.name)
	w.release(j.parent)
	if err != nil {
		j.n.c.problem(j.p, "cannot read: %v", err)
		return
	}
	w.list(j.n, &dirRef{root: sub, p: j.p})
}

// release lets go of d; the last one keeps it open for later opens (up
// to maxOpenDirs) or closes it. The input root stays open.
func (w *dirWalker) release(d *dirRef) {
	if d.refs.Add(-1) > 0 || d.p == "." {
		return
	}
	if openDirs.Add(1) > maxOpenDirs {
		openDirs.Add(-1)
		d.root.Close()
		return
	}
	w.mu.Lock()
	w.b.dirs[d.p] = d.root
	w.mu.Unlock()
}

// list lists the folder d in name order into n and pushes a job per
// subfolder. Only a failure to list the input root itself is an error.
// Files are not opened: Entry.Sniff reads their first bytes when they are
// needed, through the same open as the rest.
func (w *dirWalker) list(n *walkNode, d *dirRef) error {
	d.refs.Add(1)
	defer w.release(d)
	names, err := readDir(d.root)
	if err != nil {
		if d.p == "." {
			return err
		}
		n.c.problem(d.p, "cannot read: %v", err)
		return nil
	}
	infos, errs := lstatAll(d.root, names)
	for i, name := range names {
		cp := path.Join(d.p, name)
		info, err := infos[i], errs[i]
		switch {
		case err != nil:
			n.c.problem(cp, "cannot stat: %v", err)
			continue
		case info == nil: // gone since the listing
			continue
		case !info.IsDir():
			w.visit(d.root, cp, name, info, &n.c)
			continue
		}
		n.c.dir(cp)
		child := &walkNode{}
		n.subs = append(n.subs, walkSub{node: child, entries: len(n.c.entries), dirs: len(n.c.dirs), problems: len(n.c.problems)})
		w.push(dirJob{n: child, parent: d, name: name, p: cp})
	}
	return nil
}

// readDir returns the names in dir, sorted. The names are read without
// their FileInfo: a File opened in an os.Root would lstat each entry as
// it lists it (ReadDir), one after the other; lstatAll stats them.
func readDir(dir *os.Root) ([]string, error) {
	f, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// lstatAll returns the FileInfo (an lstat in dir) of each of names; a nil
// FileInfo with a nil error is a name gone since the listing (ReadDir
// skips those too). A large folder (TheRock's bin/ holds folders of a
// thousand test binaries) has the second half of its names stat'd on a
// goroutine of its own.
func lstatAll(dir *os.Root, names []string) ([]fs.FileInfo, []error) {
	infos, errs := make([]fs.FileInfo, len(names)), make([]error, len(names))
	stat := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			infos[i], errs[i] = dir.Lstat(names[i])
			if errors.Is(errs[i], fs.ErrNotExist) {
				infos[i], errs[i] = nil, nil
			}
		}
	}
	if len(names) < minSplitListing || runtime.GOMAXPROCS(0) == 1 {
		stat(0, len(names))
		return infos, errs
	}
	half := len(names) / 2
	var wg sync.WaitGroup
	wg.Go(func() { stat(half, len(names)) })
	stat(0, half)
	wg.Wait()
	return infos, errs
}

// minSplitListing is the entry count from which a folder's entries are
// stat'd on two goroutines.
const minSplitListing = 256

// flatten adds n's entries, folders and problems to c, each subfolder's
// where it came.
func (n *walkNode) flatten(c *collector) {
	var e, d, p int
	for _, s := range n.subs {
		n.c.moveTo(c, e, s.entries, d, s.dirs, p, s.problems)
		e, d, p = s.entries, s.dirs, s.problems
		s.node.flatten(c)
	}
	n.c.moveTo(c, e, len(n.c.entries), d, len(n.c.dirs), p, len(n.c.problems))
}

// moveTo adds the given ranges of from's entries, dirs and problems to c.
func (from *collector) moveTo(c *collector, e0, e1, d0, d1, p0, p1 int) {
	for _, e := range from.entries[e0:e1] {
		c.add(e)
	}
	c.dirs = append(c.dirs, from.dirs[d0:d1]...)
	for _, pr := range from.problems[p0:p1] {
		pr.Input = c.input
		c.problems = append(c.problems, pr)
	}
}

func (w *dirWalker) visit(dir *os.Root, p, name string, info fs.FileInfo, c *collector) {
	b := w.b
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		b.addLink(dir, p, name, info, c)
	case info.Mode().IsRegular():
		e := &Entry{Path: p, Size: info.Size(), Mode: info.Mode().Perm(), ModTime: info.ModTime(), be: b}
		if id, ok := linkIdent(info); ok {
			w.mu.Lock()
			if b.links == nil {
				b.links = map[*Entry][2]uint64{}
			}
			b.links[e] = id
			w.mu.Unlock()
		}
		c.add(e)
	default:
		c.problem(p, "skipped special file (%v)", info.Mode().Type())
	}
}
