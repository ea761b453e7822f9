package lint

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/rocm-tools/kpack-lint/finding"

	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/policy"
	"github.com/rocm-tools/kpack-lint/rules"
)

// PolicyDiffConfig is one policy-diff: the policy the gate trusts (Base)
// and the changed one (Head), files read as check reads a policy.
type PolicyDiffConfig struct {
	Base, Head string
	// BaseName and HeadName name them in the output ("": the path as
	// given, fsutil.DisplayPath).
	BaseName, HeadName string
	// BaseWaivers and HeadWaivers are waiver files (check's --waivers)
	// added to each side's waivers ("": none), named BaseWaiversName and
	// HeadWaiversName in the output ("": the path as given).
	BaseWaivers, HeadWaivers         string
	BaseWaiversName, HeadWaiversName string
	// AllowMissing takes a file that does not exist for no policy (a first
	// or a deleted policy) or no waivers.
	AllowMissing bool
	// Today (YYYY-MM-DD) and MaxWaiverDays judge a waiver added or
	// extended too broad (policy.DiffOptions).
	Today         string
	MaxWaiverDays int
	// Markdown writes the job summary's section instead of text lines.
	Markdown bool
}

// PolicyDiff writes to w what cfg.Head changes against cfg.Base that can
// let more through the gate (policy.Diff: waivers added or extended,
// rules turned down, targets, agents or machines removed), one change a
// line (text) or list item (markdown). A policy that does not load is an
// input error.
func PolicyDiff(w io.Writer, cfg PolicyDiffConfig) error {
	names := [2]string{cfg.BaseName, cfg.HeadName}
	var pols [2]*policy.Policy
	for i, p := range [2]string{cfg.Base, cfg.Head} {
		if names[i] == "" {
			names[i] = fsutil.DisplayPath(p)
		}
		pol, err := loadDiffPolicy(p, cfg.AllowMissing)
		if err != nil {
			return errs.AsInput(err)
		}
		if pol != nil {
			pol.SetPath(names[i])
		}
		pols[i] = pol
	}
	files := [2]string{cfg.BaseWaivers, cfg.HeadWaivers}
	fileNames := [2]string{cfg.BaseWaiversName, cfg.HeadWaiversName}
	for i, p := range files {
		ws, err := loadDiffWaivers(p, fileNames[i], cfg.AllowMissing)
		if err != nil {
			return errs.AsInput(err)
		}
		if len(ws) > 0 && pols[i] == nil {
			pols[i] = &policy.Policy{Path: names[i]}
		}
		if pols[i] != nil {
			pols[i].Waivers = append(pols[i].Waivers, ws...)
		}
	}
	changes := policy.Diff(pols[0], pols[1], policy.DiffOptions{DefaultLevel: defaultLevel, Today: cfg.Today, MaxWaiverDays: cfg.MaxWaiverDays})
	if cfg.Markdown {
		return policy.WriteDiffMarkdown(w, changes, names[0], names[1])
	}
	return policy.WriteDiffText(w, changes, names[0], names[1])
}

// loadDiffPolicy reads a policy as check does; with allowMissing a file
// that does not exist is no policy (nil).
func loadDiffPolicy(p string, allowMissing bool) (*policy.Policy, error) {
	if _, err := os.Stat(p); allowMissing && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return LoadPolicy(FindPolicy(p, false, nil))
}

// loadDiffWaivers reads a waiver file as check's --waivers does, its
// waivers' sources named name ("": p as given); "" is none, and with
// allowMissing so is a file that does not exist.
func loadDiffWaivers(p, name string, allowMissing bool) ([]finding.Waiver, error) {
	if p == "" {
		return nil, nil
	}
	if _, err := os.Stat(p); allowMissing && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	ws, err := policy.LoadWaiversWith(p, PolicyOptions())
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = fsutil.DisplayPath(p)
	}
	policy.SetWaiverFile(ws, name)
	return ws, nil
}

// defaultLevel is a rule's level without a policy ("" for no such rule).
func defaultLevel(id string) string {
	if r, ok := rules.ByID(id); ok {
		return string(r.Level)
	}
	return ""
}
