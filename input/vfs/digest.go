package vfs

import (
	"crypto/sha256"
	"fmt"
	"io"
)

// digest is the SHA-256 of an entry's bytes.
type digest [sha256.Size]byte

// sameByDigest reports whether SameContent must compare a and b by
// content hash: when either is a compressed-tar member whose bytes were not
// kept, since opening one decompresses the stream from its start. Hashing
// every such member of a stream that SameContent needs in one pass keeps N
// duplicate members at O(stream), not O(N x stream) (20,000 duplicates of
// one path once took hours).
func sameByDigest(a, b *Entry) bool { return notKeptMember(a) || notKeptMember(b) }

func notKeptMember(e *Entry) bool {
	tb, ok := e.be.(*tarBackend)
	return ok && e.loc >= 0 && e.loc < len(tb.members) && tb.members[e.loc].where == notKept
}

// digestOf hashes e's bytes: from the one-pass table for a member not
// kept, else by reading the entry.
func digestOf(e *Entry) (digest, error) {
	if notKeptMember(e) {
		return e.be.(*tarBackend).digestOf(e)
	}
	r, err := e.Open()
	if err != nil {
		return digest{}, err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, r.Size())); err != nil {
		return digest{}, err
	}
	var d digest
	h.Sum(d[:0])
	return d, nil
}

// digestOf returns the hash of a member not kept. The first call hashes,
// in one pass over the stream, every member not kept that the tree's
// Replaced list names (the entries SameContent is asked about); another
// member costs a pass of its own.
func (b *tarBackend) digestOf(e *Entry) (digest, error) {
	if b.digests == nil {
		b.digests = map[int]digest{}
		if err := b.hashMembers(b.replacedMembers()); err != nil {
			return digest{}, fmt.Errorf("vfs: %s: %w", e.Path, err)
		}
	}
	if _, ok := b.digests[e.loc]; !ok {
		if err := b.hashMembers(map[int]int{b.members[e.loc].ord: e.loc}); err != nil {
			return digest{}, fmt.Errorf("vfs: %s: %w", e.Path, err)
		}
	}
	return b.digests[e.loc], nil
}

// replacedMembers maps the header ordinal of each member not kept that
// Tree.Replaced names to its member index.
func (b *tarBackend) replacedMembers() map[int]int {
	want := map[int]int{}
	for _, r := range b.t.Replaced {
		for _, e := range []*Entry{r.Old, r.New} {
			if e.be == b && notKeptMember(e) {
				want[b.members[e.loc].ord] = e.loc
			}
		}
	}
	return want
}

// hashMembers decompresses the stream once and hashes the wanted members
// (header ordinal -> member index) into b.digests.
func (b *tarBackend) hashMembers(want map[int]int) error {
	if len(want) == 0 {
		return nil
	}
	r, done, err := b.reopen()
	if err != nil {
		return err
	}
	defer done()
	w := b.walker(r)
	for ord := 0; len(want) > 0; ord++ {
		if err := w.next(); err != nil {
			return fmt.Errorf("re-reading %s: %w", b.name, err)
		}
		loc, ok := want[ord]
		if !ok {
			continue
		}
		h := sha256.New()
		if _, err := io.Copy(h, w); err != nil {
			return fmt.Errorf("re-reading %s: %w", b.name, err)
		}
		var d digest
		h.Sum(d[:0])
		b.digests[loc] = d
		delete(want, ord)
	}
	return nil
}
