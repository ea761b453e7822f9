package targetid

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/xrash/smetrics"
)

// Suggest returns the valid target ID closest to an invalid one, for "did
// you mean" hints: an unknown processor becomes the nearest processor name
// of LLVM's table (edit distance, then the nearest number: gfx905 gives
// gfx904), features the processor does not support are dropped, and a
// feature without its sign gets "+". A name that is closer to one of
// TheRock's target families (Families: another case, up to two edits,
// or only the part after the "-" differs), or that looks like one (an X
// for the last digit, a -all, -dgpu, -igpu or -dcgpu suffix) when any
// family is that close, gives the family: gfx94x-dcgpu and gfx942-dcgpu
// give gfx94X-dcgpu, gfx120X-dgpu gives gfx120X-all. A family itself
// gives "" (with features too: ExpandTarget's error says what to write).
// It returns "" when nothing is close.
func Suggest(s string) string {
	body := strings.TrimPrefix(s, TriplePrefix)
	parts := strings.Split(body, ":")
	proc, ok := LookupProcessor(parts[0])
	if !ok {
		if _, fam := LookupFamily(parts[0]); fam {
			return ""
		}
		name, d := closestProcessor(parts[0])
		if f, fd := closestFamily(parts[0]); f != "" && (name == "" || fd < d || looksLikeFamily(parts[0])) {
			return f
		}
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

// maxEdits is how far a suggestion may be from what was written.
const maxEdits = 2

// closestProcessor is the processor name nearest to p and its distance,
// "" when none is within maxEdits: fewest edits, then the nearest
// number, then the name.
func closestProcessor(p string) (string, int) {
	want, _ := strconv.ParseInt(strings.TrimPrefix(p, "gfx"), 16, 64)
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
	return best, bestD
}

// closestFamily is the TheRock family nearest to p, ignoring case, and
// its distance: among the families whose part before the "-" is p's
// (gfx120X-dgpu: gfx120X-all), the one with fewest edits; else the
// family with fewest edits up to maxEdits; "" when none is. Ties keep
// the first by name. The distance is capped at maxEdits+1.
func closestFamily(p string) (string, int) {
	lp := strings.ToLower(p)
	head, _, _ := strings.Cut(lp, "-")
	fams := lowerFamilies()
	best, bestD := "", maxEdits+1
	if strings.HasPrefix(head, "gfx") {
		sameD := len(lp) + 64
		for _, f := range fams {
			if f.head == head {
				if d := editsWithin(lp, f.lower, sameD-1); d < sameD {
					best, sameD = f.name, d
				}
			}
		}
		if best != "" {
			return best, min(sameD, maxEdits+1)
		}
	}
	for _, f := range fams {
		if d := editsWithin(lp, f.lower, maxEdits); d < bestD {
			best, bestD = f.name, d
		}
	}
	if best == "" {
		return "", 0
	}
	return best, bestD
}

// lowerFamily is a family's name, in lowercase, and the lowercase part
// before its "-".
type lowerFamily struct{ name, lower, head string }

// lowerFamilies are the families by name, for closestFamily, made once.
var lowerFamilies = sync.OnceValue(func() []lowerFamily {
	var out []lowerFamily
	for _, f := range theRockFamilies() {
		l := strings.ToLower(f.Name)
		h, _, _ := strings.Cut(l, "-")
		out = append(out, lowerFamily{f.Name, l, h})
	}
	return out
})

// looksLikeFamily reports whether p is written as TheRock writes a
// family: gfx<digits>X (gfx94X, gfx110X) or a -all, -dgpu, -igpu or
// -dcgpu suffix.
func looksLikeFamily(p string) bool {
	head, suffix, dash := strings.Cut(strings.ToLower(p), "-")
	if dash && slices.Contains([]string{"all", "dgpu", "igpu", "dcgpu"}, suffix) {
		return true
	}
	return strings.HasPrefix(head, "gfx") && strings.HasSuffix(head, "x")
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
