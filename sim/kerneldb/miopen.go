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
//   - folder: MIOPEN_SYSTEM_DB_PATH (empty: unset), else <folder of
//     libMIOpen.so, symlinks resolved>/../share/miopen/db (GetSystemDbPath);
//   - DbId (TargetProperties::InitDbId): the processor, plus "_nosramecc"
//     for gfx906/gfx908 agents reporting sramecc-, plus "_xnack" for agents
//     reporting xnack+ ("_sramecc" is never added: MIOpen counts sramecc as
//     enabled only on gfx906/gfx908);
//   - CU count (Handle::GetMaxComputeUnits, src/hip/handlehip.cpp):
//     MIOPEN_DEVICE_CU when above 0, else hipDeviceAttributeMultiprocessorCount,
//     which on gfx10, gfx11 and gfx12 is the WGP count (a gfx1151 reports
//     20, not its 40 marketing CUs);
//   - basename (Handle::GetDbBasename): DbId + "_<CUs>" for at most 64
//     compute units, else DbId + the CU count in lower-case hex
//     (gfx942 with 304 CUs: gfx942130; gfx90a with 104: gfx90a68;
//     gfx1151 with 20: gfx1151_20);
//   - kernel database (kern_db GetDb): <basename>.kdb, else <DbId>.kdb;
//     find database <basename>.HIP.fdb.txt (exact name only);
//   - performance database (ExecutionContext::GetPerfDbPathFile,
//     include/miopen/execution_context.hpp): <basename>.db.txt (or the
//     SQLite <basename>.db) by exact name, else an inexact search of the
//     folder for "<DbId>..." files with the same extension, taking the one
//     whose CU count ("_<dec>" or hex after the DbId) is closest to the
//     device's. The search compares fs::path::extension(), which for
//     "x.db.txt" is ".txt", so it only ever finds SQLite ".db" files.
//
// Every miss only slows MIOpen down: without a kernel database it compiles
// kernels at run time (slow first runs, MIOpen#1651/#1606), without a find
// or perf database it searches or uses default tuning ("MIOpen(HIP):
// Warning [ParseAndLoadDb] File is unreadable: ...").
//
// Not modelled: the AI heuristic models (<proc>.tn.model, *.ktn.model),
// whose need depends on the solver and build options, and the user
// databases.

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

func miopenLookup(fs *view, l *Lookup, agent targetid.ID, cus []int, fromEnv bool) {
	dir := l.Site.Base
	l.Dir, l.DbID, l.withCUs = show(dir), DbID(agent), len(cus) > 0
	if fromEnv {
		l.Steps = append(l.Steps, Step{Path: EnvMIOpenCUs, Found: true, Note: fmt.Sprintf("%d CUs for every device", cus[0])})
	}
	if len(cus) == 0 {
		miopenWithoutCUs(fs, l, dir)
		return
	}
	for _, cu := range cus {
		first := len(l.Steps)
		miopenCU(fs, l, dir, cu)
		for i := first; i < len(l.Steps); i++ {
			l.Steps[i].CUs = cu
		}
	}
}

// miopenCU probes the kernel, find and perf databases of one CU count.
func miopenCU(fs *view, l *Lookup, dir string, cu int) {
	base := DbBasename(l.DbID, cu)
	kdb := miopenFirst(fs, l, dir, base+".kdb", l.DbID+".kdb")
	if kdb == "" {
		m := newMiss(MissingKernelDB, []string{show(join(dir, base+".kdb"))}, Slow,
			fmt.Sprintf("no kernel database for %s with %d CUs: MIOpen compiles its kernels at run time (slow first runs; needs the run-time compiler)", l.DbID, cu))
		m.Tried = []string{show(join(dir, base+".kdb")), show(join(dir, l.DbID+".kdb"))}
		l.Misses = append(l.Misses, m)
	}
	if miopenFirst(fs, l, dir, base+".HIP.fdb.txt") == "" {
		p := show(join(dir, base+".HIP.fdb.txt"))
		l.Misses = append(l.Misses, newMiss(MissingFindDB, []string{p}, Slow,
			fmt.Sprintf("MIOpen(HIP): Warning [ParseAndLoadDb] File is unreadable: %s; Find runs a full search for every new problem", p)))
	}
	if miopenFirst(fs, l, dir, base+".db.txt", base+".db") == "" && !miopenInexactPerfDB(fs, l, dir, cu) {
		p := show(join(dir, base+".db.txt"))
		m := newMiss(MissingPerfDB, []string{p}, Slow,
			fmt.Sprintf("no performance database for %s with %d CUs (nor a %s*.db for another CU count): solvers run with default tuning parameters", l.DbID, cu, l.DbID))
		m.Tried = []string{p, show(join(dir, base+".db"))}
		l.Misses = append(l.Misses, m)
	}
}

// miopenInexactPerfDB is GetPerfDbPathFile's inexact search: a SQLite
// "<DbId><CUs>.db" for another CU count, the closest one winning (the
// first in name order on a tie). ".db.txt" files never match (their
// extension() is ".txt").
func miopenInexactPerfDB(fs *view, l *Lookup, dir string, cus int) bool {
	best, bestDist := "", -1
	for _, n := range fs.list(dir) {
		stem, ok := strings.CutSuffix(n, ".db")
		if !ok || !strings.HasPrefix(stem, l.DbID) || !fs.isFile(join(dir, n)) {
			continue
		}
		c, ok := perfDBCUs(stem, l.DbID)
		if !ok {
			continue
		}
		if d := abs(c - cus); bestDist < 0 || d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return false
	}
	l.Steps = append(l.Steps, Step{Path: show(join(dir, best)), Found: true,
		Note: fmt.Sprintf("used: inexact perf database search, the closest CU count to %d", cus)})
	return true
}

// perfDBCUs reads the CU count from a perf database's stem as MIOpen does:
// the decimal after the first "_", else the hex after the DbId (std::stoi
// reads a leading number and ignores what follows).
func perfDBCUs(stem, dbID string) (int, bool) {
	if i := strings.IndexByte(stem, '_'); i >= 0 {
		return leadingInt(stem[i+1:], 10)
	}
	return leadingInt(stem[len(dbID):], 16)
}

// leadingInt parses the longest prefix of s that is a number in base (at
// most 9 digits), as std::stoi does; false when s starts with none.
func leadingInt(s string, base int) (int, bool) {
	n := 0
	for n < len(s) && n < 9 && digitOK(s[n], base) {
		n++
	}
	if n == 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(s[:n], base, 64)
	return int(v), err == nil
}

func digitOK(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '9':
		return true
	case base == 16:
		return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
	}
	return false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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
		m := newMiss(UnknownCUs, others, Slow,
			fmt.Sprintf("MIOpen opens %s<CUs>.kdb for the device's CU count, else %s.kdb, which is not shipped; the inputs hold only %s, "+
				"so a device with another CU count compiles its kernels at run time (MIOpen#1651: MI210, 104 CUs, needs gfx90a68.kdb); "+
				"give cu_counts.%s in the policy (or %s) to check the exact names",
				l.DbID, l.DbID, named(baseNames(others)), l.Processor, EnvMIOpenCUs))
		m.Exist = true
		l.Misses = append(l.Misses, m)
		return
	}
	p := show(join(dir, l.DbID+".kdb"))
	l.Misses = append(l.Misses, newMiss(MissingKernelDB, []string{p}, Slow,
		fmt.Sprintf("no kernel database for %s at all (neither %s.kdb nor a CU-specific one): MIOpen compiles its kernels at run time (slow first runs; needs the run-time compiler)", l.DbID, l.DbID)))
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
