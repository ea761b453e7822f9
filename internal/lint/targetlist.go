package lint

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// TargetListing is what the targets command prints (the JSON shape): where the
// families come from, the families and the processors.
type TargetListing struct {
	TheRock    TheRockSource    `json:"therock"`
	Families   []FamilyEntry    `json:"families"`
	Processors []ProcessorEntry `json:"processors"`
}

// TheRockSource names TheRock's file and the release it was read at.
type TheRockSource struct {
	File   string `json:"file"`
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
}

// FamilyEntry is one TheRock family: {"name": "gfx94X-dcgpu",
// "processors": ["gfx942"]}.
type FamilyEntry struct {
	Name       string   `json:"name"`
	Processors []string `json:"processors"`
}

// ProcessorEntry is one processor of LLVM's table: the features a target
// ID may set on it, its generic target (for a generic one: its members),
// the ISAs its devices report, TheRock's product name and families.
type ProcessorEntry struct {
	Name       string   `json:"name"`
	Features   []string `json:"features"`
	Generic    string   `json:"generic,omitempty"`
	IsGeneric  bool     `json:"isGeneric,omitempty"`
	Members    []string `json:"members,omitempty"`
	Retired    bool     `json:"retired,omitempty"`
	DeviceISAs []string `json:"deviceISAs,omitempty"`
	Product    string   `json:"therockProduct,omitempty"`
	Families   []string `json:"therockFamilies,omitempty"`
}

// ListTargets lists every TheRock target family and every processor of
// LLVM's table (package targetid).
func ListTargets() TargetListing {
	l := TargetListing{TheRock: TheRockSource{File: "cmake/therock_amdgpu_targets.cmake", Ref: targetid.TheRockRef, Commit: targetid.TheRockCommit},
		Families: []FamilyEntry{}, Processors: []ProcessorEntry{}}
	famsOf := map[string][]string{}
	for _, f := range targetid.Families() {
		l.Families = append(l.Families, FamilyEntry{Name: f.Name, Processors: f.Processors})
		for _, p := range f.Processors {
			famsOf[p] = append(famsOf[p], f.Name)
		}
	}
	for _, p := range processorsInOrder() {
		e := ProcessorEntry{Name: p.Name, Features: []string{}, Retired: p.Retired, Families: famsOf[p.Name]}
		for _, f := range []string{targetid.Sramecc, targetid.Xnack} {
			if p.Supports(f) {
				e.Features = append(e.Features, f)
			}
		}
		if p.Generic {
			e.IsGeneric, e.Members = true, targetid.GenericMembers(p.Name)
		} else {
			e.Generic = p.Family
			if !p.Retired {
				for _, isa := range targetid.AgentISAs(targetid.ID{Processor: p.Name}) {
					e.DeviceISAs = append(e.DeviceISAs, isa.String())
				}
			}
		}
		e.Product, _ = targetid.TheRockProduct(p.Name)
		l.Processors = append(l.Processors, e)
	}
	return l
}

// processorsInOrder are LLVM's processors by number (gfx600 ... gfx1310),
// the generic ones after them by name.
func processorsInOrder() []targetid.Processor {
	ps := targetid.Processors()
	num := func(p targetid.Processor) int64 {
		n, err := strconv.ParseInt(strings.TrimPrefix(p.Name, "gfx"), 16, 64)
		if err != nil || p.Generic {
			return 1 << 62
		}
		return n
	}
	slices.SortStableFunc(ps, func(a, b targetid.Processor) int { return cmp.Compare(num(a), num(b)) })
	return ps
}

// Only keeps the families and processors named; a name that is neither
// is a usage error with the closest name.
func (l TargetListing) Only(names []string) (TargetListing, error) {
	out := TargetListing{TheRock: l.TheRock, Families: []FamilyEntry{}, Processors: []ProcessorEntry{}}
	for _, n := range names {
		fi := slices.IndexFunc(l.Families, func(f FamilyEntry) bool { return f.Name == n })
		pi := slices.IndexFunc(l.Processors, func(p ProcessorEntry) bool { return p.Name == n })
		switch {
		case fi >= 0:
			out.Families = append(out.Families, l.Families[fi])
		case pi >= 0:
			out.Processors = append(out.Processors, l.Processors[pi])
		default:
			return out, errs.Usagef("targets: %q is neither a TheRock target family nor a processor%s (see kpack-lint targets)", n, SuggestTarget(n))
		}
	}
	return out, nil
}
