package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/targetid"
)

func explainDBCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "explain-db",
		Usage:     "simulate how rocBLAS, hipBLASLt or MIOpen finds its kernel database for an agent",
		ArgsUsage: "LIBRARY INPUT...",
		Description: "LIBRARY is a library file inside the inputs (lib/librocblas.so.5, any of its names) or rocblas, hipblaslt\n" +
			"or miopen (every copy of that library). INPUTs are overlaid like check's. The lookup is printed step by step\n" +
			"with what the library would print. Exit 0: every agent finds what it needs (MIOpen slow-downs included);\n" +
			"1: a library aborts, crashes or fails on an agent; 2: usage error.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "agent", Required: true, Usage: "agent ISA a device reports, e.g. gfx942:sramecc+:xnack-; repeatable"},
			&ucli.StringSliceFlag{Name: "env", KeepSpace: true, Usage: "ROCBLAS_TENSILE_LIBPATH, HIPBLASLT_TENSILE_LIBPATH or MIOPEN_SYSTEM_DB_PATH=PATH (relative to the build root), or MIOPEN_DEVICE_CU=N; repeatable"},
			&ucli.IntSliceFlag{Name: "cu", Usage: "compute units the device reports (MIOpen database names); repeatable"},
			&ucli.BoolFlag{Name: "deep", Usage: "parse lazy indexes and decode code objects"},
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
		},
		Action: runExplainDB,
	}
}

// dbExplanation is explain-db's JSON output: one entry per library site.
type dbExplanation struct {
	Sites []dbSite `json:"sites"`
}

type dbSite struct {
	Library   string     `json:"library"`
	Path      string     `json:"path"`
	Names     []string   `json:"names"`
	Base      string     `json:"base"`
	BaseFrom  string     `json:"base_from"`
	BaseSteps []dbStep   `json:"base_steps"`
	Skipped   string     `json:"skipped,omitempty"`
	Lookups   []dbLookup `json:"lookups"`
}

type dbLookup struct {
	Agent     string   `json:"agent"`
	Processor string   `json:"processor"`
	DbID      string   `json:"db_id,omitempty"`
	Dir       string   `json:"dir"`
	Index     string   `json:"index,omitempty"`
	Lazy      bool     `json:"lazy"`
	Steps     []dbStep `json:"steps"`
	Misses    []dbMiss `json:"misses"`
}

type dbStep struct {
	Path  string `json:"path"`
	Found bool   `json:"found"`
	Note  string `json:"note,omitempty"`
	CUs   int    `json:"cus,omitempty"` // the CU count a MIOpen probe is for
}

type dbMiss struct {
	Kind  string   `json:"kind"`
	Paths []string `json:"paths"`
	// Count is how many files the miss is about; paths lists at most
	// kerneldb.MaxMissPaths of them.
	Count int `json:"count"`
	// Exists is set when the paths exist but the library cannot use them.
	Exists bool     `json:"exists,omitempty"`
	Tried  []string `json:"tried,omitempty"`
	Effect string   `json:"effect"`
	Text   string   `json:"text"`
}

func runExplainDB(c *ucli.Context) error {
	if err := noFlagsAmongInputs(c); err != nil {
		return err
	}
	if c.NArg() < 2 {
		return usageErr("explain-db: want LIBRARY INPUT..., got %d arguments", c.NArg())
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return usageErr("--format %q: want text or json", format)
	}
	opt, agents, err := explainDBOptions(c)
	if err != nil {
		return err
	}
	tree, err := vfs.Open(c.Args().Slice()[1:], vfs.Options{Want: wanted(opt.Deep)})
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer tree.Close()
	res := kerneldb.Check(tree, agents, opt)
	ex, err := selectSites(res, c.Args().First())
	if err != nil {
		return err
	}
	if err := writeDBExplanation(c.App.Writer, format, ex); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if ex.fails() {
		return &exitError{code: ExitFindings}
	}
	return nil
}

func explainDBOptions(c *ucli.Context) (kerneldb.Options, []string, error) {
	opt := kerneldb.Options{Deep: c.Bool("deep"), Env: map[string]string{}, CUs: map[string][]int{}}
	for _, f := range c.StringSlice("env") {
		k, v, ok := strings.Cut(f, "=")
		if !ok || !kerneldb.IsEnvVar(k) {
			return opt, nil, usageErr("--env %q: want %s, %s or %s=PATH, or %s=N", f, kerneldb.EnvRocBLAS, kerneldb.EnvHipBLASLt, kerneldb.EnvMIOpen, kerneldb.EnvMIOpenCUs)
		}
		if err := kerneldb.CheckEnv(k, v); err != nil {
			return opt, nil, usageErr("--env %v", err)
		}
		opt.Env[k] = strings.ReplaceAll(v, `\`, "/")
	}
	cus := c.IntSlice("cu")
	for _, n := range cus {
		if n < 1 || n > policy.MaxCUs {
			return opt, nil, usageErr("--cu %d: want 1 to %d compute units", n, policy.MaxCUs)
		}
	}
	var agents []string
	for _, a := range c.StringSlice("agent") {
		id, err := deviceISA(a)
		if err != nil {
			return opt, nil, err
		}
		if !slices.Contains(agents, id.String()) {
			agents = append(agents, id.String())
		}
		if len(cus) > 0 {
			opt.CUs[id.Processor] = cus
		}
	}
	return opt, agents, nil
}

// deviceISA parses an --agent value of explain-db: an ISA some device
// reports (targetid.IsDeviceISA), in canonical feature order, as check
// --agent takes; a generic target or an ISA no device reports ("gfx942"
// without features, "gfx90c:xnack+") is a usage error naming what the
// processor's devices report.
func deviceISA(a string) (targetid.ID, error) {
	id, err := targetid.Parse(a)
	if err != nil {
		return targetid.ID{}, usageErr("--agent: %v", err)
	}
	if p, _ := targetid.LookupProcessor(id.Processor); p.Generic {
		return targetid.ID{}, usageErr("--agent %s: a generic target is not a device ISA; give a member device's ISA", a)
	}
	if !targetid.IsDeviceISA(id) {
		return targetid.ID{}, usageErr("--agent %s: not an ISA a device reports (%s)", a, policy.DeviceISAHint(id))
	}
	return targetid.Parse(id.Canonical())
}

// selectSites keeps the sites LIBRARY names: a short library name, or a
// path that is one of a site's names.
func selectSites(r *kerneldb.Result, lib string) (dbExplanation, error) {
	ex := dbExplanation{Sites: []dbSite{}}
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
	for _, s := range append(append([]*kerneldb.Site{}, r.Sites...), r.Skipped...) {
		if match(s) {
			ex.Sites = append(ex.Sites, toDBSite(r, s))
		}
	}
	if len(ex.Sites) == 0 {
		return ex, usageErr("explain-db: %q is not a rocBLAS, hipBLASLt or MIOpen library in the inputs (give its path, e.g. lib/librocblas.so.5, or rocblas, hipblaslt, miopen)", lib)
	}
	return ex, nil
}

func toDBSite(r *kerneldb.Result, s *kerneldb.Site) dbSite {
	out := dbSite{Library: string(s.Library), Path: s.Path, Names: s.Names, Base: s.Folder(), BaseFrom: s.BaseFrom,
		BaseSteps: toDBSteps(s.BaseSteps), Skipped: s.Why, Lookups: []dbLookup{}}
	for _, l := range r.Lookups {
		if l.Site != s {
			continue
		}
		dl := dbLookup{Agent: l.Agent, Processor: l.Processor, DbID: l.DbID, Dir: l.Dir, Index: l.Index, Lazy: l.Lazy,
			Steps: toDBSteps(l.Steps), Misses: []dbMiss{}}
		for _, m := range l.Misses {
			dl.Misses = append(dl.Misses, dbMiss{Kind: string(m.Kind), Paths: m.Paths, Count: m.Count, Exists: m.Exist, Tried: m.Tried, Effect: string(m.Effect), Text: m.Text})
		}
		out.Lookups = append(out.Lookups, dl)
	}
	return out
}

func toDBSteps(steps []kerneldb.Step) []dbStep {
	out := make([]dbStep, len(steps))
	for i, s := range steps {
		out[i] = dbStep{Path: s.Path, Found: s.Found, Note: s.Note, CUs: s.CUs}
	}
	return out
}

// fails reports whether a library aborts, crashes or fails on an agent.
func (ex dbExplanation) fails() bool {
	for _, s := range ex.Sites {
		for _, l := range s.Lookups {
			for _, m := range l.Misses {
				if kerneldb.Effect(m.Effect).Severe() {
					return true
				}
			}
		}
	}
	return false
}

func writeDBExplanation(w io.Writer, format string, ex dbExplanation) error {
	var buf bytes.Buffer
	if format == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(ex); err != nil {
			return err
		}
	} else {
		for _, s := range ex.Sites {
			writeDBSiteText(&buf, s)
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// writeDBSiteText writes one site; every value from the inputs (paths,
// file names, library messages quoting them) is escaped.
func writeDBSiteText(w io.Writer, s dbSite) {
	e := escape.String
	lib := s.Library
	fmt.Fprintf(w, "%s: library %s", lib, e(s.Path))
	if others := otherNames(s); len(others) > 0 {
		fmt.Fprintf(w, " (also %s)", e(strings.Join(others, ", ")))
	}
	fmt.Fprintf(w, "\n%s: database folder from %s\n", lib, e(s.BaseFrom))
	for _, st := range s.BaseSteps {
		fmt.Fprintf(w, "%s:   %s\n", lib, e(stepText(st)))
	}
	if s.Skipped != "" {
		fmt.Fprintf(w, "%s: not judged: %s\n", lib, e(s.Skipped))
		return
	}
	for _, l := range s.Lookups {
		fmt.Fprintf(w, "%s: agent %s (processor %s", lib, e(l.Agent), e(l.Processor))
		if l.DbID != "" {
			fmt.Fprintf(w, ", DbId %s", e(l.DbID))
		}
		fmt.Fprintln(w, ")")
		for _, st := range l.Steps {
			fmt.Fprintf(w, "%s:   %s\n", lib, e(stepText(st)))
		}
		for _, m := range l.Misses {
			fmt.Fprintf(w, "%s:   %s: %s\n", lib, e(m.Effect), e(m.Text))
		}
		if len(l.Misses) == 0 {
			fmt.Fprintf(w, "%s:   OK\n", lib)
		}
	}
}

func otherNames(s dbSite) []string {
	var out []string
	for _, n := range s.Names {
		if n != s.Path {
			out = append(out, n)
		}
	}
	return out
}

func stepText(s dbStep) string {
	return rules.StepLine(kerneldb.Step{Path: s.Path, Found: s.Found, Note: s.Note, CUs: s.CUs})
}
