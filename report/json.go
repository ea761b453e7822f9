package report

import (
	"io"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// hasGate reports whether r used a baseline or waivers.
func hasGate(r Run) bool {
	return r.Checked != nil && (r.Checked.Baseline != "" || r.Checked.Waivers != "")
}

// jsonReport is the top level of the JSON format. Structs, not maps, keep
// the key order fixed.
type jsonReport struct {
	Tool          jsonTool                `json:"tool"`
	Checked       *Checked                `json:"checked,omitempty"`
	Findings      []jsonFinding           `json:"findings"`
	Summary       jsonSummary             `json:"summary"`
	Notifications []Notification          `json:"notifications,omitempty"`
	Inventory     []finding.InventoryItem `json:"inventory,omitempty"`
	Matrix        []finding.Cell          `json:"matrix,omitempty"`
	// Machines is Run.Machines.
	Machines []finding.MachineVerdict `json:"machineVerdicts,omitempty"`
	// Artifacts gives the size of each file the findings name, when known
	// (SARIF run.artifacts), so a report read back writes the same SARIF.
	Artifacts []jsonArtifact `json:"artifacts,omitempty"`
}

type jsonArtifact struct {
	Input  int    `json:"input"`
	Path   string `json:"path"`
	Length int64  `json:"length"`
}

type jsonSummary struct {
	counts
	// Gating counts per level the open findings that count for the exit
	// code (finding.Gating: new since the baseline, all without one);
	// Failing those of them at or above FailOn, the gate's level: the
	// run exits 1 when it is not 0.
	Gating  counts        `json:"gating"`
	Failing int           `json:"failing"`
	FailOn  finding.Level `json:"failOn"`
	Gate    *gateCounts   `json:"gate,omitempty"`
}

type jsonSuppression struct {
	Justification string `json:"justification"`
	Source        string `json:"source"`
	Expires       string `json:"expires,omitempty"`
	Expired       bool   `json:"expired,omitempty"`
}

type jsonTool struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
}

type jsonFinding struct {
	RuleID     string         `json:"ruleId"`
	Name       string         `json:"name"`
	Level      finding.Level  `json:"level"`
	Message    string         `json:"message"`
	Location   jsonLocation   `json:"location"`
	Related    []jsonLocation `json:"related,omitempty"`
	Kernels    []string       `json:"kernels,omitempty"`
	Agents     []string       `json:"agents,omitempty"`
	Targets    []string       `json:"targets,omitempty"`
	Group      string         `json:"group,omitempty"`
	Loader     string         `json:"loader,omitempty"`
	KpackError string         `json:"kpackError,omitempty"`
	HIPError   string         `json:"hipError,omitempty"`
	HIPEffect  string         `json:"hipEffect,omitempty"`
	// OnMachine's fields (machine, hipRelease, devices, deviceISA,
	// realISA, outcome, otherDevice, registration, launch, then, fixes)
	// are the finding's own; nil writes none.
	*finding.OnMachine
	Library string   `json:"library,omitempty"`
	Effect  string   `json:"effect,omitempty"`
	Missing []string `json:"missing,omitempty"`
	// MissingTotal is set when Missing was cut (KPL013 keeps at most 1,000).
	MissingTotal int      `json:"missingTotal,omitempty"`
	Trace        []string `json:"trace,omitempty"`
	Fingerprint  string   `json:"fingerprint"`
	// Coverage is the coverage key (finding.Coverage).
	Coverage string `json:"coverage,omitempty"`
	// BaselineState is "new", "unchanged" or "absent" with --baseline.
	BaselineState string `json:"baselineState,omitempty"`
	// Grown says what a new finding covers that the baseline's did not.
	Grown       *finding.Growth  `json:"grown,omitempty"`
	Suppression *jsonSuppression `json:"suppression,omitempty"`
}

type jsonLocation struct {
	Input  int         `json:"input"` // 0-based index into the inputs
	Path   string      `json:"path"`
	Region *jsonRegion `json:"region,omitempty"`
}

type jsonRegion struct {
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
}

// WriteJSON writes r as one JSON object:
//
//	{"tool": {name, version, informationUri},
//	 "checked": {inputs, policy, variant, loader, targets, targetSource, agents,
//	             shard, baseline, waivers, pathPrefix},
//	 "findings": [{ruleId, name, level, message, location: {input, path, region},
//	               related, kernels, agents, targets, group, loader, kpackError,
//	               hipError, hipEffect, machine, hipRelease, windows, devices,
//	               deviceISA, realISA, outcome, otherDevice, registration,
//	               launch, then, fixes, library, effect, missing, trace,
//	               fingerprint, coverage, baselineState,
//	               grown: {agents, targets, kernels, kernelsTotal, binaries,
//	                       binariesTotal, machine, newMachine, devices,
//	                       missing, missingTotal, unrecorded},
//	               suppression: {justification, source, expires, expired}}, ...],
//	 "summary": {"error": n, "warning": n, "note": n,
//	             "gating": {"error": n, "warning": n, "note": n}, "failing": n, "failOn": level,
//	             "gate": {new, grown, unchanged, absent, waived, failing}},
//	 "notifications": [{level, kind, message, source}],
//	 "inventory": [{group, target, archives: [{input, path}], kernels, bytes}],
//	 "matrix": [{group, target, agents, loads, failed, otherFailed}],
//	 "machineVerdicts": [{machine, binaries, clean,
//	                      failing: [{input, path, devices: [{device, isa, outcome, modules}]}]}],
//	 "artifacts": [{input, path, length}]}
//
// "checked" also holds "hip" (the target matrix's release) and
// "machines": [{name, hip, cpuNodes, kpackOff, loader, devices: [{isa,
// uuid}], env, linux|windows: {devices: [{index, device, isa, real,
// override}], notes: [{var, text}], noRuntime}}].
//
// location.input counts from 0; artifacts gives the size in bytes of each
// file the findings name, where known; region, related and the finding's details
// are left out when empty; "findings" is [] when there are none. The
// summary counts open findings (not absent, not waived); of them,
// "gating" those that count for the exit code (new since the baseline,
// all without one) and "failing" those at or above "failOn" (the run
// exits 1 when it is not 0); "gate" is there with a baseline or waivers.
func WriteJSON(w io.Writer, r Run) error {
	return writeJSON(w, Sanitize(r))
}

// writeJSON is WriteJSON of a run already sanitized.
func writeJSON(w io.Writer, r Run) error {
	entries, c, err := prepare(r)
	if err != nil {
		return err
	}
	out := jsonReport{
		Tool:          jsonTool{Name: r.ToolName, Version: r.ToolVersion, InformationURI: r.InformationURI},
		Checked:       r.Checked,
		Findings:      make([]jsonFinding, 0, len(entries)),
		Summary:       summaryOf(r, entries, c),
		Notifications: r.Notifications,
		Inventory:     r.Inventory,
		Matrix:        r.Matrix,
		Machines:      r.Machines,
	}
	if hasGate(r) {
		g := gate(entries)
		out.Summary.Gate = &g
	}
	for _, e := range entries {
		out.Findings = append(out.Findings, toJSONFinding(e))
	}
	arts := collectArtifacts(entries, len(r.Inputs), r.FileSize)
	for i, a := range arts.list {
		if a.Length >= 0 {
			k := arts.keys[i]
			out.Artifacts = append(out.Artifacts, jsonArtifact{Input: k.input, Path: k.path, Length: int64(a.Length)})
		}
	}
	return encodeJSON(w, out)
}

// summaryOf is the JSON summary of entries (c their open counts).
func summaryOf(r Run, entries []entry, c counts) jsonSummary {
	v := gateVerdict(r, entries)
	return jsonSummary{counts: c, Gating: v.gating, Failing: v.failing.total(), FailOn: v.failOn}
}

func toJSONFinding(e entry) jsonFinding {
	f := e.f
	jf := jsonFinding{
		RuleID:       f.RuleID,
		Name:         e.rule.Name,
		Level:        e.level,
		Message:      escape.String(f.Message),
		Location:     toJSONLocation(f.Location),
		Kernels:      f.Kernels,
		Agents:       f.Agents,
		Targets:      f.Targets,
		Group:        f.Group,
		Loader:       f.Loader,
		KpackError:   f.KpackError,
		HIPError:     f.HIPError,
		HIPEffect:    f.HIPEffect,
		OnMachine:    f.Machine,
		Library:      f.Library,
		Effect:       f.Effect,
		Missing:      f.Missing,
		MissingTotal: cutTotal(f),
		Trace:        escapeAll(f.Trace),
		Fingerprint:  finding.Fingerprint(f),
		Coverage:     finding.Coverage(f),

		BaselineState: f.Baseline,
		Grown:         f.Grown,
	}
	if s := f.Suppression; s != nil {
		jf.Suppression = &jsonSuppression{Justification: s.Justification, Source: s.Source, Expires: s.Expires, Expired: s.Expired}
	}
	for _, rel := range f.Related {
		jf.Related = append(jf.Related, toJSONLocation(rel))
	}
	return jf
}

func toJSONLocation(l finding.Location) jsonLocation {
	jl := jsonLocation{Input: l.Input, Path: l.Path}
	if l.Region != nil {
		jl.Region = &jsonRegion{Offset: l.Region.Offset, Length: l.Region.Length}
	}
	return jl
}

// cutTotal is a finding's MissingTotal when its Missing list was cut, else
// 0 (the property is left out).
func cutTotal(f finding.Finding) int {
	if f.MissingTotal > len(f.Missing) {
		return f.MissingTotal
	}
	return 0
}
