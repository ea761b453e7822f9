// Package intern keeps one copy of each distinct string, so that the many
// archives of a build that name the same kernel keys share their bytes.
package intern

// Table maps byte sequences to one string each. The zero Table is ready to
// use; a Table is not safe for concurrent use (give each goroutine its own).
//
// A Table also answers, in the same lookup, whether a string was already
// met in the current round (Round, Seen): a TOC parser starts a round per
// archive and learns which kernel keys repeat in it without a lookup of
// its own.
type Table struct {
	m     map[string]int32 // index in strs and marks
	strs  []string
	marks []uint32 // the round each string was last Seen in
	round uint32
}

// String returns the table's string equal to b, adding a copy of b on the
// first call.
func (t *Table) String(b []byte) string { return t.strs[t.index(b)] }

// Round starts a new round of Seen, in which no string has been seen yet.
// hint is how many strings the round may add; it sizes the first round's
// table (later rounds mostly meet strings the table holds).
func (t *Table) Round(hint int) {
	if t.m == nil {
		t.m = make(map[string]int32, hint)
		t.strs, t.marks = make([]string, 0, hint), make([]uint32, 0, hint)
	}
	t.round++
	if t.round == 0 { // wrapped: forget every mark
		clear(t.marks)
		t.round = 1
	}
}

// Seen returns String(b) and whether Seen returned it before in the
// current round (Round).
func (t *Table) Seen(b []byte) (string, bool) {
	i := t.index(b)
	seen := t.marks[i] == t.round
	t.marks[i] = t.round
	return t.strs[i], seen
}

func (t *Table) index(b []byte) int32 {
	if i, ok := t.m[string(b)]; ok {
		return i
	}
	if t.m == nil {
		t.m = map[string]int32{}
	}
	i := int32(len(t.strs))
	s := string(b)
	t.m[s] = i
	t.strs = append(t.strs, s)
	t.marks = append(t.marks, 0)
	return i
}

// Len is the number of distinct strings held.
func (t *Table) Len() int { return len(t.strs) }
