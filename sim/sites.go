package sim

import (
	"path"
	"slices"
	"sort"
	"strconv"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/hostbin"
	"github.com/rocm-tools/kpack-lint/input/kpack"
	"github.com/rocm-tools/kpack-lint/input/model"
	"github.com/rocm-tools/kpack-lint/internal/util/par"
	"github.com/rocm-tools/kpack-lint/resolver"
)

// Sites lists every place kernels load from: each kpack'd host binary with
// a valid reference, and the archive folders of groups no binary uses.
// The binaries' sites are made on GOMAXPROCS goroutines but for their
// share of the run's key bytes, taken in binary order.
func Sites(b *model.Build, env resolver.Env) []*Site {
	pre := make([]sitePrep, len(b.Binaries))
	par.Each[any](len(b.Binaries), 0, 64, nil, func(_ any, i int) { pre[i] = prepareSite(b.Binaries[i]) })
	keyBytes := MaxTotalKeyBytes // left for the binaries' kernel keys
	for i := range pre {
		pre[i].budget(&keyBytes)
	}
	sites := make([]*Site, len(b.Binaries))
	par.Each[any](len(b.Binaries), 0, 64, nil, func(_ any, i int) { sites[i] = pre[i].site(b.Binaries[i], env) })
	var out []*Site
	used := map[string]bool{}
	for _, s := range sites {
		if s != nil {
			out = append(out, s)
			used[s.Group] = true
		}
	}
	for _, g := range b.Groups {
		if !used[g.Name] && len(g.Binaries) == 0 {
			out = append(out, archiveSites(b, g, env)...)
		}
	}
	return out
}

// sitePrep is a binary's site before its kernel keys are made: its
// distinct co_indexes (nil: the binary has no site) and how many it drops.
type sitePrep struct {
	cos     []uint32
	dropped int
	keyLen  int // the most bytes one of its keys takes
}

func prepareSite(bin *model.Binary) sitePrep {
	info := bin.Info
	if info == nil || info.Ref == nil {
		return sitePrep{}
	}
	cos := info.COIndexes()
	if len(cos) == 0 {
		return sitePrep{}
	}
	cos, dropped := firstDistinct(cos, MaxSiteKernels)
	return sitePrep{cos: cos, dropped: dropped, keyLen: len(info.Ref.KernelName) + len("#4294967295")}
}

// budget keeps the co_indexes whose keys fit MaxSiteKeyBytes and the
// *keyBytes left, the lowest first, and takes their bytes.
func (p *sitePrep) budget(keyBytes *int) {
	if p.cos == nil {
		return
	}
	if room := min(*keyBytes, MaxSiteKeyBytes); p.keyLen*len(p.cos) > room {
		slices.Sort(p.cos)
		keep := room / p.keyLen
		p.cos, p.dropped = p.cos[:keep], p.dropped+len(p.cos)-keep
	}
	*keyBytes -= p.keyLen * len(p.cos)
}

// site makes bin's site from p (nil when bin has none).
func (p *sitePrep) site(bin *model.Binary, env resolver.Env) *Site {
	if p.cos == nil {
		return nil
	}
	info := bin.Info
	var paths []string
	for _, sp := range info.Ref.SearchPaths {
		paths = append(paths, hostbin.NormalizeSearchPath(sp, info.Format))
	}
	slices.Sort(p.cos) // one kernel name: SortKernels order is co_index order
	kernels := make([]string, len(p.cos))
	for i, co := range p.cos {
		kernels[i] = info.Ref.KernelName + "#" + strconv.FormatUint(uint64(co), 10)
	}
	return &Site{
		Binary: bin, Group: bin.Group, Path: bin.Path, Kernels: kernels, Dropped: p.dropped,
		Request: resolver.Request{SearchPaths: paths, BinaryDir: bin.Dir(), Env: env,
			Windows: info.Format == hostbin.FormatPE},
		Location: BinaryLocation(bin),
	}
}

// firstDistinct returns the first max distinct values of cos, in any
// order, and how many distinct values came after them.
func firstDistinct(cos []uint32, max int) ([]uint32, int) {
	if len(cos) <= max {
		out := slices.Clone(cos)
		slices.Sort(out)
		return slices.Compact(out), 0
	}
	var out []uint32
	seen := map[uint32]bool{}
	dropped := 0
	for _, co := range cos {
		switch {
		case seen[co]:
		case len(out) == max:
			dropped++
		default:
			out = append(out, co)
		}
		seen[co] = true
	}
	return out, dropped
}

// archiveSites gives one site per folder of an archive-only group: its
// kernels are the TOC keys and its search path is
// "<group>_@GFXARCH@.kpack" in that folder, then any archive of the folder
// not named after that pattern.
func archiveSites(b *model.Build, g *model.Group, env resolver.Env) []*Site {
	byDir := map[string][]*model.Archive{}
	var dirs []string
	for _, a := range g.Archives {
		d := path.Dir(a.Path)
		if byDir[d] == nil {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], a)
	}
	sort.Strings(dirs)
	var out []*Site
	for _, d := range dirs {
		out = append(out, archiveSite(b, g.Name, d, byDir[d], env))
	}
	return out
}

func archiveSite(b *model.Build, group, dir string, archives []*model.Archive, env resolver.Env) *Site {
	paths := []string{group + "_" + kpack.GfxArch + ".kpack"}
	keys := map[string]bool{}
	walked := map[kpack.TOCID]bool{} // hard links and copies share one parsed TOC
	for _, a := range archives {
		if a.NameGroup != group {
			paths = append(paths, path.Base(a.Path))
		}
		if a.Info == nil || walked[a.Info.TOCID()] {
			continue
		}
		walked[a.Info.TOCID()] = true
		for k := range a.Info.Kernels {
			if name, _, _ := finding.SplitKey(k); b.Untransformed(name) == nil {
				keys[k] = true // an untransformed binary's keys are never loaded (KPL011)
			}
		}
	}
	kernels := make([]string, 0, len(keys))
	for k := range keys {
		kernels = append(kernels, k)
	}
	finding.SortKernels(kernels)
	return &Site{
		Group: group, Path: dir, Kernels: kernels,
		Request:  resolver.Request{SearchPaths: paths, BinaryDir: dir, Env: env},
		Location: ArchiveLocation(archives[0]),
	}
}
