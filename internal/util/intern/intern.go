// Package intern keeps one copy of each distinct string, so that the many
// archives of a build that name the same kernel keys share their bytes.
package intern

// Table maps byte sequences to one string each. The zero Table is ready to
// use; a Table is not safe for concurrent use (give each goroutine its own).
type Table struct {
	m map[string]string
}

// String returns the table's string equal to b, adding a copy of b on the
// first call.
func (t *Table) String(b []byte) string {
	if s, ok := t.m[string(b)]; ok {
		return s
	}
	if t.m == nil {
		t.m = map[string]string{}
	}
	s := string(b)
	t.m[s] = s
	return s
}

// Len is the number of distinct strings held.
func (t *Table) Len() int { return len(t.m) }
