package benchtree

import (
	"fmt"
	"math"
	"math/rand"
)

// Sizes of the full therock shape (issue 9's TheRock-like tree).
const (
	theRockBinaries = 5300
	theRockEntries  = 199000
	// theRockObject is the mean code object: the single-archive case's
	// 207 MB / 12,000 kernels, about 1.25 GB of archives for the tree.
	theRockObject = 17250
	libText       = 1 << 20  // mean host code of a library
	testText      = 48 << 10 // mean host code of a test binary
	// partialShare is the share of a group's keys a feature overlay holds.
	partialShare = 0.4
)

// Archive targets of a nightly (TheRock's dcgpu and dgpu families). The
// release matrix is the 11 processors below: gfx90a, gfx942 and gfx950 give
// 4 agents each (sramecc and xnack on or off), gfx1010 2 (xnack), the rest
// one: 21 agents.
var (
	matrix   = []string{"gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1151", "gfx1200", "gfx1201"}
	dc       = []string{"gfx90a", "gfx942", "gfx950"}
	dcRDNA   = []string{"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1151", "gfx1200", "gfx1201"}
	core     = []string{"gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1151", "gfx1200", "gfx1201"}
	wide     = []string{"gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1151", "gfx1200", "gfx1201"}
	overlays = []string{"gfx90a:xnack-", "gfx90a:xnack+"}
	generics = []string{"gfx9-4-generic", "gfx11-generic"}
)

// project is one ROCm project: a <name>_lib and a <name>_test group. Its
// tags say which targets it is built for; a project that skips a matrix
// target gives KPL006 (missing archive) findings there, as a real nightly
// whose projects do not all support every target would.
type project struct {
	name    string
	tags    []string
	overlay bool // the lib group adds gfx90a:xnack± overlays holding some kernels
	generic bool // both groups add gfx9-4-generic and gfx11-generic archives
}

var projects = []project{
	{name: "blas", tags: wide}, {name: "fft", tags: wide}, {name: "rand", tags: wide},
	{name: "prim", tags: wide, generic: true},
	{name: "sparse", tags: core}, {name: "solver", tags: core},
	{name: "thrust", tags: core, generic: true}, {name: "cub", tags: core, generic: true},
	{name: "miopen", tags: core}, {name: "decode", tags: core}, {name: "jpeg", tags: core},
	{name: "rpp", tags: core}, {name: "migraphx", tags: core}, {name: "torchaudio", tags: core},
	{name: "blaslt", tags: dcRDNA}, {name: "ck", tags: dcRDNA}, {name: "hipdnn", tags: dcRDNA},
	{name: "wmma", tags: dcRDNA}, {name: "tensor", tags: dcRDNA}, {name: "mivisionx", tags: dcRDNA},
	{name: "aotriton", tags: dcRDNA, overlay: true}, {name: "torch", tags: dcRDNA, overlay: true},
	{name: "torchvision", tags: dcRDNA, overlay: true}, {name: "triton", tags: dcRDNA, overlay: true},
	{name: "ccl", tags: dc}, {name: "sparselt", tags: dc}, {name: "roller", tags: dc},
	{name: "origami", tags: dc}, {name: "shmem", tags: dc}, {name: "fort", tags: dc},
}

// theRock lays out the TheRock-like tree: libraries in lib/ (1-3 per
// project, most kernels), test binaries in bin/<project>/ (Zipf-sized
// groups, the largest ~1,300 binaries, 1-3 kernels each), archives in
// lib/.kpack/, eight headers per project in include/<project>/.
func theRock(o Options) *Tree {
	rng := rand.New(rand.NewSource(o.Seed))
	t := &Tree{Targets: matrix, MeanObject: theRockObject}
	libs := 0
	for _, p := range projects {
		tags := append([]string(nil), p.tags...)
		if p.generic {
			tags = append(tags, generics...)
		}
		lib := Group{Name: p.name + "_lib", Dir: "lib/.kpack", Tags: tags}
		if p.overlay {
			lib.Tags = append(append([]string(nil), tags...), overlays...)
			lib.Partial = overlays
		}
		for i := range 1 + rng.Intn(3) {
			b := libBinary(p.name, i, 1+rng.Intn(6))
			b.Text = lognormal(rng, libText, 1)
			lib.Binaries = append(lib.Binaries, b)
			libs++
		}
		test := Group{Name: p.name + "_test", Dir: "lib/.kpack", Tags: tags}
		t.Groups = append(t.Groups, lib, test)
		for i := range 8 {
			t.Plain = append(t.Plain, fmt.Sprintf("include/%s/%s_%d.h", p.name, p.name, i))
		}
	}
	addTests(t, rng, max(len(projects), scaled(theRockBinaries, o.Scale)-libs))
	sizeLibraries(t, rng, scaled(theRockEntries, o.Scale))
	return t
}

// addTests spreads n test binaries over the test groups with Zipf weights
// (1/rank, ranks shuffled), at least one each.
func addTests(t *Tree, rng *rand.Rand, n int) {
	rank := rng.Perm(len(projects))
	weights := make([]float64, len(projects))
	for i, r := range rank {
		weights[i] = 1 / float64(r+1)
	}
	counts := apportion(n, weights)
	for i, p := range projects {
		g := &t.Groups[2*i+1]
		for j := range counts[i] {
			g.Binaries = append(g.Binaries, Binary{
				Path:    fmt.Sprintf("bin/%s/%s-test-%04d", p.name, p.name, j),
				Kernels: 1 + rng.Intn(3),
				Text:    lognormal(rng, testText, 1),
			})
		}
	}
}

// sizeLibraries gives the libraries kernel counts (log-normal weights) so
// that the tree has about entries TOC entries.
func sizeLibraries(t *Tree, rng *rand.Rand, entries int) {
	rest := float64(entries)
	for i := range projects {
		g := &t.Groups[2*i+1]
		for _, b := range g.Binaries {
			rest -= float64(b.Kernels) * g.perKey()
		}
	}
	var ws []float64
	denom := 0.0
	for i := range projects {
		g := &t.Groups[2*i]
		for range g.Binaries {
			w := math.Exp(1.2 * rng.NormFloat64())
			ws = append(ws, w)
			denom += w * g.perKey()
		}
	}
	k := 0
	for i := range projects {
		g := &t.Groups[2*i]
		for bi := range g.Binaries {
			g.Binaries[bi].Kernels = max(1, int(math.Round(max(rest, 0)*ws[k]/denom)))
			k++
		}
	}
}

// perKey is the expected number of TOC entries per kernel key.
func (g *Group) perKey() float64 {
	return float64(len(g.Tags)-len(g.Partial)) + partialShare*float64(len(g.Partial))
}

// apportion splits n into len(weights) counts of at least 1, proportional
// to weights (largest remainders).
func apportion(n int, weights []float64) []int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	counts := make([]int, len(weights))
	rest := n
	for i, w := range weights {
		counts[i] = max(1, int(float64(n)*w/total))
		rest -= counts[i]
	}
	for i := 0; rest > 0; i = (i + 1) % len(counts) {
		counts[i]++
		rest--
	}
	return counts
}

// lognormal draws a size with the given mean: mean * exp(sigma*N - sigma²/2).
func lognormal(rng *rand.Rand, mean int, sigma float64) int {
	return int(float64(mean) * math.Exp(sigma*rng.NormFloat64()-sigma*sigma/2))
}
