package cli

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
)

func explainCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "explain",
		Usage:     "simulate one kpack_load_code_object and show its trace",
		ArgsUsage: "KERNEL_KEY [INPUT...]",
		Description: "KERNEL_KEY is name#co_index (e.g. lib/libtest.so#0), or keys as findings print them (bin/x#0-2,57).\n" +
			"An embedded wrapper's key (lib/x.so[embedded]#0) shows, per --agent device, the offload-bundle entry HIP picks\n" +
			"and why (native, generic, SPIR-V, none) and the picked code object's target.\n" +
			"Each --agent device ISA is one device, alone in its process. Its arch_list is what HIP passes: the ISA and then\n" +
			"its family's generic target with the device's feature settings (gfx942:sramecc+:xnack- -> gfx9-4-generic:sramecc+:xnack-);\n" +
			"--no-generic leaves the generic targets out, and an --agent value that is itself a generic target is added\n" +
			"as given to the device before it. With --policy/--variant every agent of the variant (or each --agent) is one device whose\n" +
			"arch_list the variant decides (arch_list:), and the loader and env default to the policy's. The policy\n" +
			"is found as check finds it (./policies.yaml, else in a parent of the first INPUT): without --agent and --policy,\n" +
			"explain loads on every agent of that policy's default variant (a note on stderr says so); --no-policy: none.\n" +
			"Without --search the search paths come from the host binary whose kernel_name is the key's name (or, with\n" +
			"none, from the archives holding the key, as check does); with --search, relative paths resolve against\n" +
			"the INPUTs (default: the current directory), overlaid as check does.\n" +
			"The selected kernel is fetched and decompressed as the runtime does. With --machine (a policy machine's name,\n" +
			"or ISAs in enumeration order: gfx1036,gfx1100), explain shows what each device of that machine's process gets\n" +
			"from the module (a kernel key, or an embedded wrapper <binary>[embedded]#N) as its HIP release (--hip) loads it.\n" +
			"Exit 0: every load succeeds (every device loads its own code); 1: one fails.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "agent", Usage: "device ISA (HIP adds its generic target); repeatable: one device each; required without --policy/--variant"},
			&ucli.BoolFlag{Name: "no-generic", Usage: "pass the --agent values alone, without HIP's generic targets"},
			&ucli.StringFlag{Name: "policy", Usage: "policy file (default: found as check finds it); its loader, env: and arch_list apply, and without --agent its variant's agents"},
			&ucli.BoolFlag{Name: "no-policy", Usage: "read no policy file"},
			&ucli.StringFlag{Name: "variant", Usage: "build variant of the policy whose agents to load on"},
			&ucli.StringFlag{Name: "loader", Usage: "fallthrough or legacy (default: the policy's, else fallthrough; machines: their release's)"},
			machineFlag(),
			hipFlag(),
			&ucli.StringSliceFlag{Name: "search", KeepSpace: true, Usage: "archive search path (may hold @GFXARCH@); repeatable"},
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&ucli.StringFlag{Name: "binary", Usage: "host binary (path inside INPUT) whose search paths to use, when several have the kernel name"},
			&ucli.StringSliceFlag{Name: "env", KeepSpace: true, Usage: "loader environment, KEY=VALUE (ROCM_KPACK_PATH, ROCM_KPACK_PATH_PREFIX, ROCM_KPACK_DISABLE; machines: " + lint.MachineVars + "); repeatable"},
			deepMemoryFlag(),
			maxDecompressedFlag(),
			xzFlag(),
		},
		Action: runExplain,
	}
}

// maxExplainKeys bounds the kernel keys one explain expands a range into.
const maxExplainKeys = 1024

// runExplain turns explain's flags into the pipeline's configuration and
// runs it (lint.Explain).
func runExplain(c *ucli.Context) error {
	cfg, src, err := explainConfig(c)
	if err != nil {
		return err
	}
	err = lint.Explain(cfg)
	var ve *lint.VariantError
	if errors.As(err, &ve) {
		return errs.AsUsage(src.Wrap(err))
	}
	return err
}

// explainConfig reads explain's flags, in the order their errors are
// reported, and the policy they name or discovery finds (as check finds
// it: --policy, else ./policies.yaml, else in a parent of the first input;
// --no-policy: none).
func explainConfig(c *ucli.Context) (lint.Config, lint.PolicySource, error) {
	var cfg lint.Config
	keys, inputs, err := explainArgs(c)
	if err != nil {
		return cfg, lint.PolicySource{}, err
	}
	format := c.String("format")
	if !slices.Contains(textOrJSON, format) {
		return cfg, lint.PolicySource{}, badChoice("--format", format, textOrJSON)
	}
	if c.String("loader") != "" {
		if _, err := finding.ParseLoader(c.String("loader")); err != nil {
			return cfg, lint.PolicySource{}, badChoice("--loader", c.String("loader"), loaderNames)
		}
	}
	mem, err := memoryBudget(c)
	if err != nil {
		return cfg, lint.PolicySource{}, err
	}
	maxDec, err := maxDecompressed(c)
	if err != nil {
		return cfg, lint.PolicySource{}, err
	}
	xz, err := xzDecoder(c)
	if err != nil {
		return cfg, lint.PolicySource{}, err
	}
	src := lint.FindPolicy(c.String("policy"), c.Bool("no-policy"), inputs)
	src.Warn(c.App.ErrWriter)
	pol, err := lint.LoadPolicy(src)
	if err != nil {
		return cfg, src, errs.AsInput(err)
	}
	env, err := lint.LoaderEnv(pol, c.StringSlice("env"))
	if err != nil {
		return cfg, src, err
	}
	menv, err := lint.MachineEnv(pol, c.StringSlice("env"))
	if err != nil {
		return cfg, src, err
	}
	cfg = lint.Config{
		Machines: c.StringSlice("machine"), HIP: c.String("hip"), MachineEnv: menv,
		Inputs: inputs, Policy: pol, PolicyFound: src.Found(),
		Variant: c.String("variant"), Agents: c.StringSlice("agent"), Loader: finding.Loader(c.String("loader")), Env: env,
		MaxDecompressed: maxDec, XZ: xz,
		Explain: lint.Selection{Keys: keys, Search: c.StringSlice("search"), Binary: c.String("binary"), NoGeneric: c.Bool("no-generic")},
		Report:  lint.Report{Stdout: c.App.Writer, Format: format},
		Note:    noteWriter(c.App.ErrWriter),
	}
	cfg.DeepOptions.MaxMemory = mem
	return cfg, src, nil
}

func explainArgs(c *ucli.Context) (keys, inputs []string, err error) {
	if c.NArg() == 0 {
		return nil, nil, errs.Usagef("explain: want KERNEL_KEY [INPUT...]")
	}
	inputs = c.Args().Slice()[1:]
	if len(inputs) == 0 {
		inputs = []string{"."}
	}
	keys, err = expandKeys(c.Args().First())
	return keys, inputs, err
}

// expandKeys reads a kernel key (name#co_index) or keys as findings print
// them: name#0-2,57 gives name#0, name#1, name#2, name#57.
func expandKeys(spec string) ([]string, error) {
	bad := errs.Usagef("explain: kernel key %q: want name#co_index, e.g. lib/libtest.so#0, or name#0-2,57", spec)
	i := strings.LastIndexByte(spec, '#')
	if i < 0 {
		return nil, bad
	}
	name := spec[:i]
	var keys []string
	for _, part := range strings.Split(spec[i+1:], ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.ParseUint(lo, 10, 32)
		z, err2 := a, error(nil)
		if isRange {
			z, err2 = strconv.ParseUint(hi, 10, 32)
		}
		if err1 != nil || err2 != nil || z < a {
			return nil, bad
		}
		if z-a >= maxExplainKeys || len(keys)+int(z-a) >= maxExplainKeys {
			return nil, errs.Usagef("explain: %q names more than %d kernel keys; narrow the range", spec, maxExplainKeys)
		}
		for co := a; co <= z; co++ {
			keys = append(keys, name+"#"+strconv.FormatUint(co, 10))
		}
	}
	return keys, nil
}
