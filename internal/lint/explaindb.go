package lint

import (
	"path"
	"strings"

	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
)

// ExplainDB is `kpack-lint explain-db`: it reads the inputs (stage 1),
// simulates how every copy of cfg.Library finds its kernel database for
// each of cfg.Agents (device ISAs, canonical: DeviceISA) with cfg.DBEnv and
// cfg.CUs (kerneldb.Check; with cfg.Deep the lazy indexes are parsed and
// code objects decoded), and writes the lookups in cfg.Report.Format
// (report.WriteDBExplanation). It returns ErrFindings when a library
// aborts, crashes or fails on an agent.
func ExplainDB(cfg Config) error {
	if _, err := sim.MatrixRelease(cfg.HIP); err != nil {
		return err
	}
	tree, err := openTree(&cfg, vfs.Options{Want: wanted(cfg.Deep)})
	if err != nil {
		return err
	}
	defer tree.Close()
	res := kerneldb.Check(tree, cfg.Agents, kerneldb.Options{Deep: cfg.Deep, Env: cfg.DBEnv, CUs: cfg.CUs, HIP: cfg.HIP})
	if err := budgetSpent(tree); err != nil {
		return err
	}
	ex, fails, err := selectSites(res, cfg.Library)
	if err != nil {
		return err
	}
	if err := report.WriteDBExplanation(cfg.Report.Stdout, cfg.Report.Format, ex); err != nil {
		return err
	}
	if fails {
		return ErrFindings
	}
	return nil
}

// selectSites keeps the sites lib names (a short library name, or a path
// that is one of a site's names) and reports whether a library aborts,
// crashes or fails on an agent there.
func selectSites(r *kerneldb.Result, lib string) (report.DBExplanation, bool, error) {
	ex := report.DBExplanation{Sites: []report.DBSite{}}
	match := func(s *kerneldb.Site) bool {
		if strings.EqualFold(lib, string(s.Library)) {
			return true
		}
		for _, n := range s.Names {
			if n == path.Clean(strings.TrimPrefix(lib, "/")) {
				return true
			}
		}
		return false
	}
	fails := false
	for _, s := range append(append([]*kerneldb.Site{}, r.Sites...), r.Skipped...) {
		if match(s) {
			site, severe := toDBSite(r, s)
			ex.Sites = append(ex.Sites, site)
			fails = fails || severe
		}
	}
	if len(ex.Sites) == 0 {
		return ex, false, errs.Usagef("explain-db: %q is not a rocBLAS, hipBLASLt, MIOpen or AOTriton library in the inputs (give its path, e.g. lib/librocblas.so.5, or rocblas, hipblaslt, miopen, aotriton)%s",
			lib, libraryHint(r, lib))
	}
	return ex, fails, nil
}

// libraryHint is " (did you mean X?)" for the library name or path of
// the inputs lib is closest to (policy.DidYouMean), "" when none is.
func libraryHint(r *kerneldb.Result, lib string) string {
	names := []string{"rocblas", "hipblaslt", "miopen", "aotriton"}
	for _, s := range append(append([]*kerneldb.Site{}, r.Sites...), r.Skipped...) {
		names = append(names, s.Names...)
	}
	return policy.DidYouMean(strings.ToLower(lib), names)
}

// toDBSite is the site's lookups for the report, and whether one of them
// misses something that makes the library abort, crash or fail.
func toDBSite(r *kerneldb.Result, s *kerneldb.Site) (report.DBSite, bool) {
	out := report.DBSite{Library: string(s.Library), Path: s.Path, Names: s.Names, Base: s.Folder(), BaseFrom: s.BaseFrom,
		BaseSteps: toDBSteps(s.BaseSteps), Release: s.Release, ReleaseRow: s.HipBLASLtRow, ReleaseFrom: s.ReleaseFrom, Skipped: s.Why, Lookups: []report.DBLookup{}}
	severe := false
	for _, l := range r.Lookups {
		if l.Site != s {
			continue
		}
		dl := report.DBLookup{Agent: l.Agent, Processor: l.Processor, DbID: l.DbID, Dir: l.Dir, Index: l.Index, Lazy: l.Lazy,
			Steps: toDBSteps(l.Steps), Misses: []report.DBMiss{}}
		for _, m := range l.Misses {
			dl.Misses = append(dl.Misses, report.DBMiss{Kind: string(m.Kind), Paths: m.Paths, Count: m.Count, Exists: m.Exist, Tried: m.Tried, Effect: string(m.Effect), Text: m.Text})
			severe = severe || m.Effect.Severe()
		}
		out.Lookups = append(out.Lookups, dl)
	}
	return out, severe
}

func toDBSteps(steps []kerneldb.Step) []report.DBStep {
	out := make([]report.DBStep, len(steps))
	for i, s := range steps {
		out[i] = report.DBStep{Path: s.Path, Found: s.Found, Note: s.Note, CUs: s.CUs, Text: rules.StepLine(s)}
	}
	return out
}
