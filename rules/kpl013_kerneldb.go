package rules

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// missingKernelDatabase is KPL013: a library cannot open its per-arch kernel
// database on an agent the build targets. Its findings take their ID from it
// (Run); explain shows nothing of it: explain-db shows the library lookups.
var missingKernelDatabase = Rule{
	Rule: finding.Rule{
		ID: "KPL013", Name: "missing-kernel-database", Level: finding.LevelError,
		Title: "A library cannot open its per-arch kernel database on an agent the build targets",
		Text: "rocBLAS, hipBLASLt and MIOpen read loose per-architecture database files next to the library (or from " +
			"ROCBLAS_TENSILE_LIBPATH, HIPBLASLT_TENSILE_LIBPATH, MIOPEN_SYSTEM_DB_PATH), AOTriton its kernel images from aotriton.images/amd-<family>/ " +
			"next to libaotriton_v2.so (a missing folder fails flash and mem-efficient SDPA, pytorch/pytorch#194498). The simulated lookup finds no Tensile index for the " +
			"agent's processor (rocBLAS aborts: 'rocBLAS error: Cannot read .../TensileLibrary.dat ... for GPU arch : gfx942'; hipBLASLt " +
			"prints 'rocblaslt error: Cannot read' and its calls fail later), no lazy-loading code object, or, with --deep, files the index " +
			"names; MIOpen kernel, find and perf databases for the device's DbId and CU count are notes (run-time compilation is slow, " +
			"not fatal). On simulated machines the lookup runs for every device of the process by the ISA it reports, and a miss that aborts " +
			"the process takes the other devices down too (KPL014). Also warns about a per-arch file set much smaller than its siblings' and notes files for arches the build does " +
			"not target (TheRock#5179, TheRock#5478, rocm-systems#7645, MIOpen#1651). A wheel extra meant for every target (rocm[device-all]) " +
			"or for a TheRock family that requires no device wheel for a targeted processor is an error: pip installs no code and no kernel " +
			"databases for it (TheRock#5347).",
		Help: "Ship the library's per-arch files for every targeted processor (TheRock: the device packages), from the same build as the library; " +
			"`kpack-lint explain-db --agent ISA LIBRARY INPUT` shows the lookup.",
	},
	Checks: []Check{checkKernelDatabases, checkRequirements, checkExtras, checkMachineDatabases},
}

// checkKernelDatabases is KPL013: what rocBLAS, hipBLASLt and MIOpen fail
// to open of their per-arch kernel databases on the simulated agents
// (kerneldb), per-arch file sets much smaller than their siblings', and
// files for arches the build does not target.
func checkKernelDatabases(c *Context) []finding.Finding {
	r := c.Databases
	if r == nil {
		return nil
	}
	out := lookupFindings(r)
	targeted := targetedProcessors(c)
	for _, s := range r.Sites {
		if s.ScanLimit {
			out = append(out, scanLimitFinding(s))
		}
		out = append(out, smallSetFindings(s, targeted)...)
		if f, ok := deadWeightFinding(c, s, targeted); ok {
			out = append(out, f)
		}
	}
	return out
}

// dbCluster is one root cause: the same misses of one library site in one
// folder, on every agent that meets them.
type dbCluster struct {
	first  *kerneldb.Lookup
	misses []kerneldb.Miss
	agents []string
	// procs are the agents' processors, sorted; others are the misses of
	// the lookups after the first (their files, named for their processor).
	procs  []string
	others [][]kerneldb.Miss
}

// lookupFindings gives one finding per library site, lookup folder and set
// of misses: breaking misses (errors) and slow-downs (notes) separately.
func lookupFindings(r *kerneldb.Result) []finding.Finding {
	byKey := map[string]*dbCluster{}
	var order []string
	for _, l := range r.Lookups {
		for _, severe := range []bool{true, false} {
			ms := missesOf(l, severe)
			if len(ms) == 0 {
				continue
			}
			key := clusterKey(l, ms)
			cl := byKey[key]
			if cl == nil {
				cl = &dbCluster{first: l, misses: ms}
				byKey[key] = cl
				order = append(order, key)
			}
			cl.agents = append(cl.agents, l.Agent)
			if !slices.Contains(cl.procs, l.Processor) {
				cl.procs = append(cl.procs, l.Processor)
				if l != cl.first {
					cl.others = append(cl.others, ms)
				}
			}
		}
	}
	out := make([]finding.Finding, 0, len(order))
	for _, k := range order {
		out = append(out, dbFinding(r, byKey[k]))
	}
	return out
}

func missesOf(l *kerneldb.Lookup, severe bool) []kerneldb.Miss {
	var out []kerneldb.Miss
	for _, m := range l.Misses {
		if m.Effect.Severe() == severe {
			out = append(out, m)
		}
	}
	return out
}

// clusterKey groups lookups by root cause: library site, the folder it
// reads and the misses, a processor's name in their files standing for
// every processor (TensileLibrary_lazy_gfx942.dat and _gfx950.dat missing
// from one folder are one cause: the folder lacks the files of the
// processors the finding lists). Per-arch folders differ, so each stays
// its own cause; MIOpen and AOTriton findings stay per processor.
func clusterKey(l *kerneldb.Lookup, ms []kerneldb.Miss) string {
	parts := []string{string(l.Site.Library), l.Site.Path, l.Dir}
	if lib := l.Site.Library; lib == kerneldb.MIOpen || lib == kerneldb.AOTriton {
		parts = append(parts, l.Processor) // DbIDs, CU counts and image families name the processor in their own ways
	}
	for _, m := range ms {
		parts = append(parts, string(m.Kind), string(m.Effect), procless(strings.Join(m.Paths, "\x01"), l.Processor))
	}
	return strings.Join(parts, "\x00")
}

// dbCauseProcessor is the processor a KPL013 cause names in its subject:
// MIOpen's and AOTriton's, whose files name the processor in their own
// ways (one cause per processor), else none: a folder that lacks the files
// of several processors is one cause whichever processors it hits, so its
// fingerprint stays when the defect spreads or shrinks (the baseline
// compares what it covers).
func dbCauseProcessor(l *kerneldb.Lookup) string {
	if lib := l.Site.Library; lib == kerneldb.MIOpen || lib == kerneldb.AOTriton {
		return l.Processor
	}
	return ""
}

// procless replaces the processor's name in s by a placeholder.
func procless(s, proc string) string {
	if proc == "" {
		return s
	}
	return strings.ReplaceAll(s, proc, "\x02")
}

// MaxMissing bounds Finding.Missing and the related files of a KPL013
// finding (MissingTotal counts every missing file): a crafted index naming
// a million sub-libraries gives a report of a few kilobytes.
const MaxMissing = kerneldb.MaxMissPaths

func dbFinding(r *kerneldb.Result, cl *dbCluster) finding.Finding {
	l, s := cl.first, cl.first.Site
	sort.Strings(cl.agents)
	sort.Strings(cl.procs)
	lead := leadMiss(cl.misses)
	var texts, kinds []string
	missing := map[string]bool{}
	total := 0
	var related []finding.Location
	for _, m := range cl.misses {
		texts = append(texts, m.Text)
		kinds = append(kinds, string(m.Kind))
		if m.Exist {
			related = append(related, existingFiles(r, m.Paths, MaxMissing-len(related))...)
			continue
		}
		total += m.Count
		for _, p := range m.Paths {
			missing[p] = true
		}
	}
	effect := lead.Effect
	lvl := finding.LevelError
	if !effect.Severe() {
		lvl = finding.LevelNote
	}
	for _, ms := range cl.others {
		for _, m := range ms {
			if !m.Exist {
				total += m.Count
				for _, p := range m.Paths {
					missing[p] = true
				}
			}
		}
	}
	listed := sortedKeys(missing)
	if len(listed) > MaxMissing {
		listed = listed[:MaxMissing]
	}
	sees := "The user sees"
	if effect == kerneldb.NotChecked {
		sees = "Details"
	}
	return finding.Finding{
		Level: lvl,
		Message: fmt.Sprintf("%s (%s) %s on %s: %s. %s: %s. Fix: %s",
			s.Library, s.Path, headline(l, lead, cl.procs), listAgents(cl.agents), effectPhrase(effect, len(cl.agents)), sees, seen(l, cl.procs, texts), dbFix(l, lead, cl.procs, false)),
		Location:     finding.Location{Input: s.Input, Path: s.Path},
		Related:      related,
		Agents:       cl.agents,
		Trace:        lookupTrace(l),
		Subject:      subject("kernel-db", string(s.Library), s.Path, l.Dir, dbCauseProcessor(l), strings.Join(kinds, ",")),
		Library:      string(s.Library),
		Effect:       string(effect),
		Missing:      listed,
		MissingTotal: max(total, len(listed)),
	}
}

// procList names the processors of a finding, at most finding.MaxListed.
func procList(procs []string) string {
	return finding.CapList(procs, finding.MaxListed, ", ")
}

// seen is what the user sees: the first lookup's texts, said to be for
// its processor when the finding covers several.
func seen(l *kerneldb.Lookup, procs, texts []string) string {
	out := strings.Join(texts, "; also ")
	if len(procs) > 1 {
		out = "on " + l.Processor + ": " + out + " (the same for " + finding.CapList(others(procs, l.Processor), finding.MaxListed, ", ") + ")"
	}
	return out
}

func others(procs []string, p string) []string {
	var out []string
	for _, q := range procs {
		if q != p {
			out = append(out, q)
		}
	}
	return out
}

// leadMiss is the miss the finding is about: the first with the most
// severe effect (the headline, effect and fix all follow it).
func leadMiss(ms []kerneldb.Miss) kerneldb.Miss {
	lead := ms[0]
	for _, m := range ms[1:] {
		if effectRank[m.Effect] < effectRank[lead.Effect] {
			lead = m
		}
	}
	return lead
}

// existingFiles locates files a library cannot use (they exist: an index
// that does not parse, code objects for another target), at most n.
func existingFiles(r *kerneldb.Result, paths []string, n int) []finding.Location {
	var out []finding.Location
	for _, p := range paths {
		if len(out) >= n {
			break
		}
		in, _ := r.InputOf(p)
		out = append(out, finding.Location{Input: in, Path: p})
	}
	return out
}

// scanLimitFinding reports a database folder kerneldb stopped scanning at
// kerneldb.MaxScanEntries: its per-arch counts, the default targets and
// the sibling comparison are incomplete.
func scanLimitFinding(s *kerneldb.Site) finding.Finding {
	return finding.Finding{
		Level: finding.LevelError,
		Message: fmt.Sprintf("%s's database folder %s holds more than %d files and folders (kerneldb.MaxScanEntries): kpack-lint attributed only the first to arches, "+
			"so processors it ships files for may be left unchecked. Fix: remove what does not belong in the folder (a real one holds a few ten thousand files), or check the arches with --target.",
			s.Library, s.Folder(), kerneldb.MaxScanEntries),
		Location: finding.Location{Input: s.Input, Path: s.Path},
		Subject:  subject("kernel-db-scan-limit", string(s.Library), s.Path),
		Library:  string(s.Library),
		Effect:   string(kerneldb.NotChecked),
	}
}

// effectRank orders effects, most severe first.
var effectRank = map[kerneldb.Effect]int{kerneldb.Abort: 0, kerneldb.Crash: 1, kerneldb.FailsLater: 2, kerneldb.NotChecked: 3, kerneldb.Slow: 4}

// effectPhrase says what the effect means for the program.
func effectPhrase(e kerneldb.Effect, gpus int) string {
	switch e {
	case kerneldb.Abort:
		return "the process aborts"
	case kerneldb.Crash:
		return "the process crashes"
	case kerneldb.FailsLater:
		if gpus > 1 {
			return "its calls on those GPUs fail"
		}
		return "its calls on that GPU fail"
	case kerneldb.NotChecked:
		return "kpack-lint could not check it (a limit was hit)"
	}
	return "it works, only slower"
}

// headline says what the library lacks, after its first (most basic) miss.
func headline(l *kerneldb.Lookup, m kerneldb.Miss, procs []string) string {
	proc := procList(procs)
	switch m.Kind {
	case kerneldb.MissingIndex:
		if l.Dir == kerneldb.CwdDir {
			return fmt.Sprintf("has no Tensile library for %s: it reads from the working directory", proc)
		}
		return fmt.Sprintf("has no Tensile library for %s in %s", proc, l.Dir)
	case kerneldb.MissingFolder:
		if strings.Contains(m.Text, "Not a directory") {
			return fmt.Sprintf("has no Tensile library folder for %s (%s is a file, not a folder)", proc, l.Dir)
		}
		return fmt.Sprintf("has no Tensile library folder for %s (%s does not exist)", proc, l.Dir)
	case kerneldb.MissingMapping:
		return fmt.Sprintf("has no lazy library mapping for %s in %s", proc, l.Dir)
	case kerneldb.LimitHit:
		return fmt.Sprintf("has an index kpack-lint did not check (%s)", l.Index)
	case kerneldb.MissingHelper:
		return fmt.Sprintf("lacks the lazy-loading code object Kernels.so-000-<proc>.hsaco for %s in %s", proc, l.Dir)
	case kerneldb.NoCodeObjects:
		return fmt.Sprintf("finds no %s code objects in %s", proc, l.Dir)
	case kerneldb.BadIndex:
		return fmt.Sprintf("cannot parse its index %s", l.Index)
	case kerneldb.MissingPlaceholder, kerneldb.MissingCodeObject:
		return fmt.Sprintf("lacks files its index %s names", l.Index)
	case kerneldb.WrongCodeObject:
		return fmt.Sprintf("ships code objects in %s that do not load", l.Dir)
	case kerneldb.UnknownCUs:
		return fmt.Sprintf("has only CU-specific kernel databases for %s in %s", l.DbID, l.Dir)
	case kerneldb.MissingImages:
		return fmt.Sprintf("has no AOTriton images for %s (%s)", proc, m.Paths[0])
	case kerneldb.UnsupportedArch:
		return fmt.Sprintf("has no kernels for %s", proc)
	}
	return fmt.Sprintf("misses databases for %s in %s", l.DbID, l.Dir)
}

// dbFix is the fix of miss m of lookup l for processors procs;
// onMachine words it for a machine's device, which a build cannot drop
// from its targets.
func dbFix(l *kerneldb.Lookup, m kerneldb.Miss, procs []string, onMachine bool) string {
	lib, proc := l.Site.Library, procList(procs)
	switch m.Kind {
	case kerneldb.MissingIndex, kerneldb.MissingFolder, kerneldb.MissingHelper, kerneldb.NoCodeObjects:
		if l.Site.BaseFrom == envName(lib) {
			now := "it is " + l.Site.Folder()
			if l.Site.Folder() == "" {
				now = "it is set but empty"
			}
			return fmt.Sprintf("point %s at a folder that holds %s's files for %s (%s), or unset it.", l.Site.BaseFrom, lib, proc, now)
		}
		pkg := "its " + proc + " device package"
		if len(procs) > 1 {
			pkg = "their " + proc + " device packages"
		}
		if onMachine {
			return fmt.Sprintf("ship %s's files for %s (TheRock: %s) in %s; %s can point %s at another folder.",
				lib, proc, pkg, l.Site.Folder(), envName(lib), lib)
		}
		return fmt.Sprintf("ship %s's files for %s (TheRock: %s) in %s, or drop %s from the targets; %s can point %s at another folder.",
			lib, proc, pkg, l.Site.Folder(), proc, envName(lib), lib)
	case kerneldb.MissingPlaceholder, kerneldb.MissingCodeObject:
		return fmt.Sprintf("ship every file the index names: the whole %s set of one Tensile build.", proc)
	case kerneldb.WrongCodeObject:
		return fmt.Sprintf("ship code objects built for %s; a file's name (arch, xnack variant) must match its ELF target.", proc)
	case kerneldb.BadIndex:
		return "ship the index written by the Tensile build that made the library."
	case kerneldb.LimitHit:
		return "check that the index is the one the Tensile build wrote (a real index stays far below the limit); accept the finding with a waiver if it is."
	case kerneldb.MissingMapping:
		return fmt.Sprintf("ship the mapping file hipBLASLt's build writes next to the %s index (it goes in the same device package).", proc)
	case kerneldb.UnknownCUs:
		return fmt.Sprintf("give cu_counts.%s in the policy (the CU counts your devices report) so the exact names are checked.", proc)
	case kerneldb.MissingImages:
		folder := path.Base(m.Paths[0])
		return fmt.Sprintf("install the wheel or package that holds %s (TheRock's multi-arch torch: %s, which the per-arch amd-torch-device-%s wheel does not pull in "+
			"before rocm-systems PR 10685), from the same build as %s.", m.Paths[0], kerneldb.AOTritonWheel(folder), proc, path.Base(l.Site.Path))
	case kerneldb.UnsupportedArch:
		return fmt.Sprintf("use an AOTriton (torch build) with kernels for %s, or accept the MATH backend on it.", proc)
	}
	return fmt.Sprintf("ship MIOpen's %s databases for the CU counts your devices report (the %s kdb package), or accept run-time compilation and search.", l.DbID, proc)
}

func envName(lib kerneldb.Library) string {
	switch lib {
	case kerneldb.RocBLAS:
		return kerneldb.EnvRocBLAS
	case kerneldb.HipBLASLt:
		return kerneldb.EnvHipBLASLt
	}
	return kerneldb.EnvMIOpen
}

// lookupTrace renders the site's base probing and the lookup's steps.
func lookupTrace(l *kerneldb.Lookup) []string {
	var out []string
	for _, st := range append(append([]kerneldb.Step{}, l.Site.BaseSteps...), l.Steps...) {
		out = append(out, StepLine(st))
	}
	return out
}

// StepLine renders one lookup step: "lib/rocblas/library/gfx942: found
// (per-arch folder)", with the CU count a MIOpen probe is for first
// ("[104 CUs] share/miopen/db/gfx90a68.kdb: found (used)").
func StepLine(st kerneldb.Step) string {
	state := "missing"
	if st.Found {
		state = "found"
	}
	if st.Note != "" {
		state += " (" + st.Note + ")"
	}
	if st.CUs > 0 {
		return fmt.Sprintf("[%d CUs] %s: %s", st.CUs, st.Path, state)
	}
	return st.Path + ": " + state
}

// targetedProcessors are the processors of the declared targets and of the
// simulated agents; a generic target counts for each member.
func targetedProcessors(c *Context) map[string]bool {
	out := map[string]bool{}
	add := func(t string) {
		id, err := targetid.Parse(t)
		if err != nil {
			return
		}
		out[id.Processor] = true
		for _, m := range targetid.GenericMembers(id.Processor) {
			out[m] = true
		}
	}
	for _, t := range c.Targets {
		add(t)
	}
	for _, a := range c.Agents {
		add(a.ISA)
	}
	return out
}

// Thresholds of the sibling comparison: a per-arch set is "much smaller"
// when siblings hold a median of at least minSiblingMedian files and the
// set fewer than a smallSetRatio-th of that.
const (
	smallSetRatio    = 10
	minSiblingMedian = 20
)

// smallSetFindings warns about targeted processors whose database files
// are far fewer than the other processors' in the same folder: a
// truncated or stray artifact (TheRock#5179, TheRock PR 6362).
func smallSetFindings(s *kerneldb.Site, targeted map[string]bool) []finding.Finding {
	var out []finding.Finding
	for _, p := range s.Processors() {
		a := s.Arches[p]
		if len(targeted) > 0 && !targeted[p] {
			continue
		}
		var others []int
		var desc []string
		for _, q := range s.Processors() {
			if q != p {
				others = append(others, s.Arches[q].Count)
				desc = append(desc, fmt.Sprintf("%s %d", q, s.Arches[q].Count))
			}
		}
		med := median(others)
		if len(others) == 0 || med < minSiblingMedian || a.Count*smallSetRatio >= med {
			continue
		}
		out = append(out, finding.Finding{
			Level: finding.LevelWarning,
			Message: fmt.Sprintf("%s's database folder %s holds %s for %s, but a median of %d for its other arches (%s): the %s set looks truncated "+
				"(an incomplete or stray per-arch artifact, TheRock#5179, TheRock PR 6362). Fix: ship the complete %s set from the build that made %s.",
				s.Library, s.Folder(), plural(a.Count, "file"), p, med, finding.CapList(desc, finding.MaxListed, ", "), p, p, path.Base(s.Path)),
			Location: finding.Location{Input: a.Input, Path: a.First},
			Subject:  subject("kernel-db-set", string(s.Library), s.Path, p),
			Library:  string(s.Library),
		})
	}
	return out
}

func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int(nil), xs...)
	sort.Ints(s)
	return s[len(s)/2]
}

// deadWeightFinding notes database files for processors the build does
// not target (TheRock's splitter would have dropped them).
func deadWeightFinding(c *Context, s *kerneldb.Site, targeted map[string]bool) (finding.Finding, bool) {
	if len(targeted) == 0 {
		return finding.Finding{}, false
	}
	var desc []string
	var first *kerneldb.ArchFiles
	var files int
	var bytes int64
	for _, p := range s.Processors() {
		if targeted[p] {
			continue
		}
		a := s.Arches[p]
		if first == nil {
			first = a
		}
		files += a.Count
		bytes += a.Bytes
		desc = append(desc, fmt.Sprintf("%s (%s, %s)", p, plural(a.Count, "file"), plural(int(a.Bytes), "byte")))
	}
	if first == nil {
		return finding.Finding{}, false
	}
	return finding.Finding{
		Level: finding.LevelNote,
		Message: fmt.Sprintf("%s's database folder %s ships files for arches the build does not target: %s; %s, %s of dead weight (targets from %s: %s). "+
			"Fix: drop them (TheRock's splitter keeps only --gpu-targets), or add the arches to the targets.",
			s.Library, s.Folder(), finding.CapList(desc, finding.MaxListed, ", "), plural(files, "file"), plural(int(bytes), "byte"), c.TargetSource, finding.CapList(c.Targets, finding.MaxListed, ", ")),
		Location: finding.Location{Input: first.Input, Path: first.First},
		Subject:  subject("kernel-db-untargeted", string(s.Library), s.Path),
		Library:  string(s.Library),
	}, true
}
