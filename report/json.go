package report

import (
	"io"

	"github.com/rocm-tools/kpack-lint/rules"
)

// jsonReport is the top level of the JSON format. Structs, not maps, keep
// the key order fixed.
type jsonReport struct {
	Tool     jsonTool      `json:"tool"`
	Findings []jsonFinding `json:"findings"`
	Summary  counts        `json:"summary"`
}

type jsonTool struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
}

type jsonFinding struct {
	RuleID      string         `json:"ruleId"`
	Name        string         `json:"name"`
	Level       rules.Level    `json:"level"`
	Message     string         `json:"message"`
	Location    jsonLocation   `json:"location"`
	Related     []jsonLocation `json:"related,omitempty"`
	Kernels     []string       `json:"kernels,omitempty"`
	Agents      []string       `json:"agents,omitempty"`
	Group       string         `json:"group,omitempty"`
	Loader      string         `json:"loader,omitempty"`
	KpackError  string         `json:"kpackError,omitempty"`
	HIPError    string         `json:"hipError,omitempty"`
	HIPEffect   string         `json:"hipEffect,omitempty"`
	Library     string         `json:"library,omitempty"`
	Effect      string         `json:"effect,omitempty"`
	Missing     []string       `json:"missing,omitempty"`
	Trace       []string       `json:"trace,omitempty"`
	Fingerprint string         `json:"fingerprint"`
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
//	 "findings": [{ruleId, name, level, message, location: {input, path, region},
//	               related, kernels, agents, group, loader, kpackError,
//	               hipError, hipEffect, library, effect, missing, trace,
//	               fingerprint}, ...],
//	 "summary": {"error": n, "warning": n, "note": n}}
//
// location.input counts from 0; region, related and the finding's details
// are left out when empty; "findings" is [] when there are none.
func WriteJSON(w io.Writer, r Run) error {
	entries, c, err := prepare(r)
	if err != nil {
		return err
	}
	out := jsonReport{
		Tool:     jsonTool{Name: r.ToolName, Version: r.ToolVersion, InformationURI: r.InformationURI},
		Findings: make([]jsonFinding, 0, len(entries)),
		Summary:  c,
	}
	for _, e := range entries {
		out.Findings = append(out.Findings, toJSONFinding(e))
	}
	return encodeJSON(w, out)
}

func toJSONFinding(e entry) jsonFinding {
	f := e.f
	jf := jsonFinding{
		RuleID:      f.RuleID,
		Name:        e.rule.Name,
		Level:       e.level,
		Message:     f.Message,
		Location:    toJSONLocation(f.Location),
		Kernels:     f.Kernels,
		Agents:      f.Agents,
		Group:       f.Group,
		Loader:      f.Loader,
		KpackError:  f.KpackError,
		HIPError:    f.HIPError,
		HIPEffect:   f.HIPEffect,
		Library:     f.Library,
		Effect:      f.Effect,
		Missing:     f.Missing,
		Trace:       f.Trace,
		Fingerprint: Fingerprint(f),
	}
	for _, rel := range f.Related {
		jf.Related = append(jf.Related, toJSONLocation(rel))
	}
	return jf
}

func toJSONLocation(l rules.Location) jsonLocation {
	jl := jsonLocation{Input: l.Input, Path: l.Path}
	if l.Region != nil {
		jl.Region = &jsonRegion{Offset: l.Region.Offset, Length: l.Region.Length}
	}
	return jl
}
