package targetid

import (
	"sort"
	"strconv"
	"strings"

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
// within two edits.
func closestProcessor(p string) string {
	type cand struct {
		name      string
		dist, num int
	}
	var cs []cand
	want, _ := strconv.ParseInt(strings.TrimPrefix(p, "gfx"), 16, 64)
	for _, q := range Processors() {
		d := smetrics.WagnerFischer(p, q.Name, 1, 1, 1)
		if d > 2 {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimPrefix(q.Name, "gfx"), 16, 64)
		cs = append(cs, cand{q.Name, d, abs(int(n - want))})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		if cs[i].num != cs[j].num {
			return cs[i].num < cs[j].num
		}
		return cs[i].name < cs[j].name
	})
	if len(cs) == 0 {
		return ""
	}
	return cs[0].name
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
