package targetid

import (
	"strconv"
	"strings"
	"sync"

	"github.com/xrash/smetrics"
)

// Suggest returns the valid target ID closest to an invalid one, for "did
// you mean" hints: an unknown processor becomes the nearest processor name
// of LLVM's table (edit distance, then the nearest number: gfx905 gives
// gfx904), features the processor does not support are dropped, and a
// feature without its sign gets "+". It returns "" when nothing is close.
func Suggest(s string) string {
	body := strings.TrimPrefix(s, TriplePrefix)
	parts := strings.Split(body, ":")
	proc, ok := LookupProcessor(parts[0])
	if !ok {
		name := closestProcessor(parts[0])
		if name == "" {
			return ""
		}
		proc, _ = LookupProcessor(name)
	}
	id := ID{Processor: proc.Name}
	for _, part := range parts[1:] {
		if part != "" && part[len(part)-1] != '+' && part[len(part)-1] != '-' {
			part += "+"
		}
		if f, msg := parseFeature(part, proc, id.Features); msg == "" {
			id.Features = append(id.Features, f)
		}
	}
	out := id.String()
	if out == body {
		return ""
	}
	return out
}

// closestProcessor is the processor name nearest to p, "" when none is
// within two edits: fewest edits, then the nearest number, then the name.
func closestProcessor(p string) string {
	want, _ := strconv.ParseInt(strings.TrimPrefix(p, "gfx"), 16, 64)
	const maxEdits = 2
	best, bestD, bestN := "", maxEdits+1, 0
	for _, q := range suggestNames() {
		d := editsWithin(p, q.name, min(bestD, maxEdits))
		if d > maxEdits {
			continue
		}
		n := abs(int(q.num - want))
		if d < bestD || d == bestD && n < bestN { // names ascend: ties keep the first
			best, bestD, bestN = q.name, d, n
		}
	}
	return best
}

// editsWithin is the edit distance (Levenshtein, on bytes) of a and b
// when it is at most limit, else limit+1. Names of up to 31 bytes are
// compared in arrays on the stack, stopping at the first row past limit;
// longer ones by smetrics.WagnerFischer.
func editsWithin(a, b string, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	if len(b) >= 32 {
		return min(smetrics.WagnerFischer(a, b, 1, 1, 1), limit+1)
	}
	var r1, r2 [32]int
	prev, cur := r1[:len(b)+1], r2[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c = 1 + min(prev[j-1], prev[j], cur[j-1])
			}
			cur[j] = c
			low = min(low, c)
		}
		if low > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit+1)
}

// suggestName is a processor name and its number (gfx90a: 0x90a) for
// closestProcessor.
type suggestName struct {
	name string
	num  int64
}

// suggestNames are the processors of LLVM's table sorted by name, made
// once.
var suggestNames = sync.OnceValue(func() []suggestName {
	var out []suggestName
	for _, q := range Processors() {
		n, _ := strconv.ParseInt(strings.TrimPrefix(q.Name, "gfx"), 16, 64)
		out = append(out, suggestName{q.Name, n})
	}
	return out
})

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
