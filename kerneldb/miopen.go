package kerneldb

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// MIOpen's system databases (rocm-libraries projects/miopen):
//
//   - folder: MIOPEN_SYSTEM_DB_PATH, else <folder of libMIOpen.so>/
//     ../share/miopen/db (GetSystemDbPath);
//   - DbId (TargetProperties::InitDbId): the processor, plus "_nosramecc"
//     for gfx906/gfx908 agents reporting sramecc-, plus "_xnack" for agents
//     reporting xnack+ ("_sramecc" is never added: MIOpen counts sramecc as
//     enabled only on gfx906/gfx908);
//   - basename (Handle::GetDbBasename): DbId + "_<CUs>" for at most 64
//     compute units, else DbId + the CU count in lower-case hex
//     (gfx942 with 304 CUs: gfx942130; gfx90a with 104: gfx90a68), the CU
//     count being what the device reports (multiProcessorCount);
//   - kernel database (kern_db GetDb): <basename>.kdb, else <DbId>.kdb;
//     find database <basename>.HIP.fdb.txt; performance database
//     <basename>.db.txt (or the SQLite <basename>.db).
//
// Every miss only slows MIOpen down: without a kernel database it compiles
// kernels at run time (slow first runs, MIOpen#1651/#1606), without a find
// or perf database it searches or uses default tuning ("MIOpen(HIP):
// Warning [ParseAndLoadDb] File is unreadable: ...").
//
// Not modelled: the AI heuristic models (<proc>.tn.model, *.ktn.model),
// whose need depends on the solver and build options.

func miopenBase(dir string) string { return join(dir, "../share/miopen/db") }

// DbID is MIOpen's database ID for an agent ISA.
func DbID(agent targetid.ID) string {
	id := agent.Processor
	sramecc, set := agent.Setting(targetid.Sramecc)
	if (id == "gfx906" || id == "gfx908") && set && !sramecc {
		id += "_nosramecc"
	}
	if xnack, set := agent.Setting(targetid.Xnack); set && xnack {
		id += "_xnack"
	}
	return id
}

// DbBasename is MIOpen's database file stem for a DbId and CU count.
func DbBasename(dbID string, cus int) string {
	if cus <= 64 {
		return dbID + "_" + strconv.Itoa(cus)
	}
	return dbID + strconv.FormatInt(int64(cus), 16)
}

func miopenLookup(fs *view, l *Lookup, agent targetid.ID, cus []int) {
	dir := l.Site.Base
	l.Dir, l.DbID, l.withCUs = show(dir), DbID(agent), len(cus) > 0
	if len(cus) == 0 {
		miopenWithoutCUs(fs, l, dir)
		return
	}
	for _, cu := range cus {
		base := DbBasename(l.DbID, cu)
		kdb := miopenFirst(fs, l, dir, base+".kdb", l.DbID+".kdb")
		if kdb == "" {
			l.Misses = append(l.Misses, Miss{Kind: MissingKernelDB, Paths: []string{show(join(dir, base+".kdb"))},
				Tried: []string{show(join(dir, base+".kdb")), show(join(dir, l.DbID+".kdb"))}, Effect: Slow,
				Text: fmt.Sprintf("no kernel database for %s with %d CUs: MIOpen compiles its kernels at run time (slow first runs; needs the run-time compiler)", l.DbID, cu)})
		}
		if miopenFirst(fs, l, dir, base+".HIP.fdb.txt") == "" {
			p := show(join(dir, base+".HIP.fdb.txt"))
			l.Misses = append(l.Misses, Miss{Kind: MissingFindDB, Paths: []string{p}, Effect: Slow,
				Text: fmt.Sprintf("MIOpen(HIP): Warning [ParseAndLoadDb] File is unreadable: %s; Find runs a full search for every new problem", p)})
		}
		if miopenFirst(fs, l, dir, base+".db.txt", base+".db") == "" {
			p := show(join(dir, base+".db.txt"))
			l.Misses = append(l.Misses, Miss{Kind: MissingPerfDB, Paths: []string{p}, Tried: []string{p, show(join(dir, base+".db"))}, Effect: Slow,
				Text: fmt.Sprintf("no performance database for %s with %d CUs: solvers run with default tuning parameters", l.DbID, cu)})
		}
	}
}

// miopenFirst returns the first name that exists in dir, recording steps.
func miopenFirst(fs *view, l *Lookup, dir string, names ...string) string {
	for _, n := range names {
		p := join(dir, n)
		found := fs.isFile(p)
		st := Step{Path: show(p), Found: found}
		if found {
			st.Note = "used"
		}
		l.Steps = append(l.Steps, st)
		if found {
			return p
		}
	}
	return ""
}

// miopenWithoutCUs checks the DbId-level kernel database only: without the
// device's CU count the CU-specific names cannot be derived.
func miopenWithoutCUs(fs *view, l *Lookup, dir string) {
	if miopenFirst(fs, l, dir, l.DbID+".kdb") != "" {
		return
	}
	others := cuSpecific(fs, dir, l.DbID, ".kdb")
	l.Steps = append(l.Steps, Step{Path: show(dir), Found: len(others) > 0,
		Note: "CU-specific names not checked: no CU count for " + l.Processor})
	if len(others) > 0 {
		l.Misses = append(l.Misses, Miss{Kind: UnknownCUs, Paths: others, Effect: Slow,
			Text: fmt.Sprintf("MIOpen opens %s<CUs>.kdb for the device's CU count, else %s.kdb, which is not shipped; the inputs hold only %s, "+
				"so a device with another CU count compiles its kernels at run time (MIOpen#1651: MI210, 104 CUs, needs gfx90a68.kdb); "+
				"give cu_counts.%s in the policy to check the exact names",
				l.DbID, l.DbID, strings.Join(baseNames(others), ", "), l.Processor)})
		return
	}
	p := show(join(dir, l.DbID+".kdb"))
	l.Misses = append(l.Misses, Miss{Kind: MissingKernelDB, Paths: []string{p}, Effect: Slow,
		Text: fmt.Sprintf("no kernel database for %s at all (neither %s.kdb nor a CU-specific one): MIOpen compiles its kernels at run time (slow first runs; needs the run-time compiler)", l.DbID, l.DbID)})
}

// cuSpecific lists dir's files named <dbID>_<decimal><ext> or
// <dbID><hex><ext>.
func cuSpecific(fs *view, dir, dbID, ext string) []string {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(dbID) + `(_[0-9]+|[0-9a-f]+)` + regexp.QuoteMeta(ext) + `$`)
	var out []string
	for _, n := range fs.list(dir) {
		if re.MatchString(n) {
			out = append(out, show(join(dir, n)))
		}
	}
	return out
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p[strings.LastIndexByte(p, '/')+1:]
	}
	return out
}
