package lint

import (
	"fmt"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/gate"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/report"
	"github.com/rocm-tools/kpack-lint/rules"
)

// Merge is `kpack-lint merge`: its inputs are the JSON or SARIF reports of
// every shard of one check (stage 1: report.Read, then gate.CheckShard:
// each holds only what check --shard writes for what it checked), which
// gate.Merge joins into the report of the whole run and gate.Rebase gives
// baseline states against cfg.Gate.Baseline (none: no states; a shard's
// are never kept) (stage 5); the reports are written as cfg.Report says
// (stage 6), an output without a format in the first report's. It returns
// ErrFindings when findings at or above cfg.Gate.FailOn count, as check
// of the whole run would.
func Merge(cfg Config) error {
	var runs []report.Run
	var firstFormat string
	all := rules.All() // one copy for every shard
	for i, p := range cfg.Inputs {
		data, err := fsutil.ReadFile(p, report.MaxReadSize)
		if err != nil {
			return errs.AsInput(fmt.Errorf("merge: %s: %v", p, err))
		}
		r, format, err := report.Read(data)
		if err != nil {
			return errs.AsInput(fmt.Errorf("merge: %s: %v", p, err))
		}
		if i == 0 {
			firstFormat = format
		}
		r.Rules = all
		if err := gate.CheckShard(r); err != nil {
			return errs.AsUsage(fmt.Errorf("merge: %s: %v", p, err))
		}
		runs = append(runs, r)
	}
	merged, err := gate.Merge(runs)
	if err != nil {
		return errs.AsUsage(err)
	}
	merged = rebase(&cfg, merged)
	merged.Rules = all
	merged.FailOnBaseline, merged.FailOn = cfg.Gate.FailOnBaseline, failOn(cfg.Gate)
	merged.Color = cfg.Report.Color
	merged.NewOnly, merged.MaxPerRule = cfg.Report.NewOnly, cfg.Report.MaxPerRule
	outs := make([]Output, len(cfg.Report.Outputs))
	for i, o := range cfg.Report.Outputs {
		if o.Format == "" {
			o.Format = firstFormat
		}
		outs[i] = o
	}
	cfg.Report.Outputs = outs
	if err := write(&cfg, merged); err != nil {
		return err
	}
	if finding.Failing(merged.Findings, merged.Rules, failOn(cfg.Gate), merged.FailOnBaseline) > 0 {
		return ErrFindings
	}
	return nil
}

// rebase is gate.Rebase with merge's baseline, telling when it is not the
// shards' (MergeBaselineNote) and the warnings check tells (BaselineNote).
func rebase(cfg *Config, merged report.Run) report.Run {
	g := cfg.Gate
	shards := merged.Checked.Baseline
	if shards != "" && g.Baseline == nil || shards == "" && g.Baseline != nil {
		cfg.tell(MergeBaselineNote{Shards: shards, Merge: g.BaselineName})
	}
	out, warned := gate.Rebase(merged, g.Baseline, g.BaselineName)
	for _, n := range warned {
		cfg.tell(BaselineNote{Baseline: g.BaselineFile, Message: n.Message})
	}
	return out
}
