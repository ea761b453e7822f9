package sim

import (
	"reflect"
	"testing"
)

// TestFirstDistinct: a binary's co_indexes are kept in wrapper order up
// to the bound (later distinct ones counted as dropped), repeats once.
func TestFirstDistinct(t *testing.T) {
	got, dropped := firstDistinct([]uint32{7, 3, 7, 1}, 10)
	if want := []uint32{1, 3, 7}; !reflect.DeepEqual(got, want) || dropped != 0 {
		t.Errorf("under the bound: %v, %d dropped; want %v, 0", got, dropped, want)
	}
	got, dropped = firstDistinct([]uint32{9, 9, 4, 8, 4, 2, 8, 5}, 2)
	if want := []uint32{9, 4}; !reflect.DeepEqual(got, want) || dropped != 3 {
		t.Errorf("over the bound: %v, %d dropped; want %v, 3 (8, 2, 5)", got, dropped, want)
	}
}
