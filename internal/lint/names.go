package lint

import (
	"slices"
	"strings"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/input/vfs"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/resolver"
	"github.com/rocm-tools/kpack-lint/rules"
	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/sim/kerneldb"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// What the command line offers and checks before a run: the rules, the
// HIP releases, the targets, the environment variables and the defaults,
// as the packages below the pipeline define them. The command line parses
// flags into a Config; whatever decides (is this a target ID, which rule
// is this name, which variants does this policy declare) is asked here.

// Defaults of the gate and of explain-db, for the flags' defaults and
// bounds.
const (
	// DefaultMaxKernelLoss is KPL012's default loss, a fraction
	// (rules.DefaultMaxKernelLoss; Gate.MaxKernelLoss is a percentage).
	DefaultMaxKernelLoss = rules.DefaultMaxKernelLoss
	// DefaultMaxWaiverDays is how far ahead a waiver may expire before a
	// broad-waiver warning (policy.DefaultMaxWaiverDays).
	DefaultMaxWaiverDays = policy.DefaultMaxWaiverDays
	// MaxCUs bounds a compute-unit count (policy.MaxCUs).
	MaxCUs = policy.MaxCUs
)

// The error types the command line words with its flags.
type (
	// VariantError is a variant the policy cannot give
	// (policy.VariantError).
	VariantError = policy.VariantError
	// PolicyErrors are every error of a policy or waiver file, one a line
	// (policy.Errors).
	PolicyErrors = policy.Errors
	// TargetIDError is a value that is no target ID (targetid.Error).
	TargetIDError = targetid.Error
)

// Rules returns every rule's documentation, sorted by ID (rules.All).
func Rules() []finding.Rule { return rules.All() }

// FindRule looks a rule up by ID (any case) or name.
func FindRule(s string) (finding.Rule, bool) {
	if r, ok := rules.ByID(strings.ToUpper(s)); ok {
		return r, true
	}
	for _, r := range rules.All() {
		if r.Name == s {
			return r, true
		}
	}
	return finding.Rule{}, false
}

// HIPReleases names the modelled HIP releases in table order (--hip's
// values: hip.Names).
func HIPReleases() []string { return hip.Names() }

// CheckTarget reports why t is neither a target ID nor a TheRock target
// family (gfx94X-dcgpu stands for its processors), nil when it is one.
func CheckTarget(t string) error {
	_, _, err := targetid.ExpandTarget(t)
	return err
}

// CheckAgent reports why t is no target ID, nil when it is one.
func CheckAgent(t string) error {
	_, err := targetid.Parse(t)
	return err
}

// SuggestTarget is " (did you mean X?)" for the valid target ID closest
// to t, "" when none is close.
func SuggestTarget(t string) string {
	if s := targetid.Suggest(t); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}

// IsTargetFamily reports whether t names a TheRock target family.
func IsTargetFamily(t string) bool {
	_, ok := targetid.LookupFamily(t)
	return ok
}

// CheckVariant reports whether pol (nil: no policy) gives the variant
// name ("": its default), as a run would choose it
// (policy.Policy.Variant: a *VariantError when it does not).
func CheckVariant(pol *policy.Policy, name string) error {
	_, _, err := pol.Variant(name)
	return err
}

// VariantNames lists the variants of the policy file at p, none when it
// does not load (shell completion).
func VariantNames(p string) []string {
	pol, err := policy.Load(p)
	if err != nil {
		return nil
	}
	return pol.VariantNames()
}

// EnvNames lists the environment variables check's --env takes besides
// the machine variables: the loader's and the kernel databases'.
func EnvNames() []string {
	return []string{resolver.EnvPath, resolver.EnvPrefix, resolver.EnvDisable, resolver.EnvDebug,
		kerneldb.EnvRocBLAS, kerneldb.EnvHipBLASLt, kerneldb.EnvMIOpen, kerneldb.EnvMIOpenCUs}
}

// DeviceISAs lists every agent ISA a device reports, by processor.
func DeviceISAs() []string {
	var out []string
	for _, p := range targetid.Processors() {
		if p.Generic {
			continue
		}
		for _, id := range targetid.AgentISAs(targetid.ID{Processor: p.Name}) {
			out = append(out, id.String())
		}
	}
	return out
}

// TargetNames lists the processors (generic ones included), TheRock's
// target families and the agent ISAs, which are valid target IDs too.
func TargetNames() []string {
	var out []string
	for _, p := range targetid.Processors() {
		out = append(out, p.Name)
	}
	for _, f := range targetid.Families() {
		out = append(out, f.Name)
	}
	for _, isa := range DeviceISAs() {
		if !slices.Contains(out, isa) {
			out = append(out, isa)
		}
	}
	return out
}

// DBEnv reads explain-db's --env values: kernel-database variables
// (kerneldb.IsEnvVar), each checked (kerneldb.CheckEnv), paths relative
// to the build root with "\" read as "/". A value that is none is a
// usage error.
func DBEnv(flags []string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		if !ok || !kerneldb.IsEnvVar(k) {
			return nil, errs.Usagef("--env %q: want %s, %s or %s=PATH, or %s=N", f, kerneldb.EnvRocBLAS, kerneldb.EnvHipBLASLt, kerneldb.EnvMIOpen, kerneldb.EnvMIOpenCUs)
		}
		if err := kerneldb.CheckEnv(k, v); err != nil {
			return nil, errs.Usagef("--env %v", err)
		}
		out[k] = strings.ReplaceAll(v, `\`, "/")
	}
	return out, nil
}

// ReadReport reads a JSON or SARIF report of kpack-lint (a baseline), at
// most report.MaxReadSize bytes, with the rules of this version.
func ReadReport(p string) (report.Run, error) {
	data, err := fsutil.ReadFile(p, report.MaxReadSize)
	if err != nil {
		return report.Run{}, err
	}
	r, _, err := report.Read(data)
	if err != nil {
		return report.Run{}, err
	}
	r.Rules = rules.All()
	return r, nil
}

// AddPolicyWaivers adds the waivers of pol (nil: none) to the gate, named
// by the policy's file.
func (g *Gate) AddPolicyWaivers(pol *policy.Policy) {
	if pol != nil && len(pol.Waivers) > 0 {
		g.Waivers = append(g.Waivers, pol.Waivers...)
		g.WaiverFiles = pol.Path
	}
}

// AddWaiverFile reads the waivers of the YAML file at p (a policy's
// waivers: list, checked against the rules: PolicyOptions) and adds them
// to the gate, named by fsutil.DisplayPath. A file that does not read
// is an input error.
func (g *Gate) AddWaiverFile(p string) error {
	ws, err := policy.LoadWaiversWith(p, PolicyOptions())
	if err != nil {
		return errs.AsInput(err)
	}
	policy.SetWaiverFile(ws, fsutil.DisplayPath(p))
	g.Waivers = append(g.Waivers, ws...)
	g.WaiverFiles = strings.TrimPrefix(g.WaiverFiles+", "+fsutil.DisplayPath(p), ", ")
	return nil
}

// InputFormats lists the kinds of input a run reads (vfs.Formats: a
// directory, the archives by file-name ending, any other file), in the
// order help lists them.
func InputFormats() []vfs.Format { return vfs.Formats() }
