package cli

import (
	"slices"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
)

func explainDBCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "explain-db",
		Usage:     "simulate how rocBLAS, hipBLASLt, MIOpen or AOTriton finds its kernel database (AOTriton: images) for an agent",
		ArgsUsage: "LIBRARY INPUT...",
		Description: "LIBRARY is a library file inside the inputs (lib/librocblas.so.5, any of its names) or rocblas, hipblaslt,\n" +
			"miopen or aotriton (every copy of that library). INPUTs are overlaid like check's. The lookup is printed step by step\n" +
			"with what the library would print. Exit 0: every agent finds what it needs (MIOpen slow-downs included);\n" +
			"1: a library aborts, crashes or fails on an agent; 2: usage error.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "agent", Required: true, Usage: "agent ISA a device reports, e.g. gfx942:sramecc+:xnack-; repeatable"},
			&ucli.StringSliceFlag{Name: "env", KeepSpace: true, Usage: "ROCBLAS_TENSILE_LIBPATH, HIPBLASLT_TENSILE_LIBPATH or MIOPEN_SYSTEM_DB_PATH=PATH (relative to the build root), or MIOPEN_DEVICE_CU=N; repeatable"},
			&ucli.IntSliceFlag{Name: "cu", Usage: "compute units the device reports (MIOpen database names); repeatable"},
			&ucli.BoolFlag{Name: "deep", Usage: "parse lazy indexes and decode code objects"},
			maxDecompressedFlag(),
			xzFlag(),
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			hipFlag(),
		},
		Action: runExplainDB,
	}
}

// runExplainDB turns explain-db's flags into the pipeline's configuration
// and runs it (lint.ExplainDB).
func runExplainDB(c *ucli.Context) error {
	if c.NArg() < 2 {
		return errs.Usagef("explain-db: want LIBRARY INPUT..., got %d arguments", c.NArg())
	}
	format := c.String("format")
	if !slices.Contains(textOrJSON, format) {
		return badChoice("--format", format, textOrJSON)
	}
	cfg, err := explainDBConfig(c)
	if err != nil {
		return err
	}
	cfg.Inputs, cfg.Library = c.Args().Slice()[1:], c.Args().First()
	cfg.Report = lint.Report{Stdout: c.App.Writer, Format: format}
	return lint.ExplainDB(cfg)
}

// explainDBConfig reads --deep, --max-decompressed, --env, --cu and --agent: device ISAs
// (lint.DeviceISA), each once.
func explainDBConfig(c *ucli.Context) (lint.Config, error) {
	cfg := lint.Config{Deep: c.Bool("deep"), CUs: map[string][]int{}, HIP: c.String("hip")}
	var err error
	if cfg.MaxDecompressed, err = maxDecompressed(c); err != nil {
		return cfg, err
	}
	if cfg.XZ, err = xzDecoder(c); err != nil {
		return cfg, err
	}
	if cfg.DBEnv, err = lint.DBEnv(c.StringSlice("env")); err != nil {
		return cfg, err
	}
	cus := c.IntSlice("cu")
	for _, n := range cus {
		if n < 1 || n > lint.MaxCUs {
			return cfg, errs.Usagef("--cu %d: want 1 to %d compute units", n, lint.MaxCUs)
		}
	}
	for _, a := range c.StringSlice("agent") {
		id, err := lint.DeviceISA(a)
		if err != nil {
			return cfg, err
		}
		if !slices.Contains(cfg.Agents, id.String()) {
			cfg.Agents = append(cfg.Agents, id.String())
		}
		if len(cus) > 0 {
			cfg.CUs[id.Processor] = cus
		}
	}
	return cfg, nil
}
