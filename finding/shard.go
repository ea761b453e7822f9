package finding

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/errs"
)

// Shard is one part of a run split for a CI matrix (check --shard I/N):
// Index counts from 1 to Count. The zero Shard is the whole run.
//
// Work is split by kpack group: a group belongs to shard
// 1 + FNV-1a-32(key) mod Count, where key is the group name (a file with no
// group is keyed by its path). The split depends only on the names, so it is
// stable across runs, machines and releases.
type Shard struct {
	Index, Count int
}

// errShard is what is wrong with a shard that is not I/N.
var errShard = errors.New("want I/N with 1 <= I <= N, e.g. 2/4")

// ParseShard reads "I/N" (1 <= I <= N); another value is an
// *errs.OptionError for option "shard".
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
		return Shard{}, &errs.OptionError{Option: "shard", Value: s, Err: errShard}
	}
	return Shard{Index: a, Count: b}, nil
}

// String is "I/N", or "" for the whole run.
func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Has reports whether the group (or, with group "", the file at path)
// belongs to this shard. The whole run has everything.
func (s Shard) Has(group, path string) bool {
	if s.Count <= 1 {
		return true
	}
	return OwnerOf(group, path, s.Count) == s
}

// OwnerOf is the shard of n (n >= 2) that checks the group (or, with
// group "", the file at path): 1 + FNV-1a-32(key) mod n.
func OwnerOf(group, path string, n int) Shard {
	key := "group:" + group
	if group == "" {
		key = "path:" + path
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return Shard{Index: int(h.Sum32()%uint32(n)) + 1, Count: n}
}

// HasFinding reports whether f belongs to this shard: by its group, else
// by its file.
func (s Shard) HasFinding(f Finding) bool { return s.Has(f.Group, f.Location.Path) }
