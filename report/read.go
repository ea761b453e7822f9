package report

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"
	"github.com/rocm-tools/kpack-lint/finding"
)

// MaxReadSize bounds a report Read accepts (128 MiB), so that the file
// and what it decodes to stay within the run's memory.
const MaxReadSize = 128 << 20

// Read parses a report kpack-lint wrote in the JSON or SARIF format (the
// format is recognised from the content) back into a Run: its findings
// with their fingerprints, baseline states and waivers, what was checked,
// the inventory, the load matrix, the notifications and (SARIF) the file
// sizes. Writing the Run again in the same format gives the same bytes;
// Rules is left for the caller to set. It returns the format read. Every
// string read is sanitized (Sanitize): a baseline or shard cannot carry a
// raw control character into the run's messages or outputs.
//
// Before decoding, the report's shape is checked against
// MaxReadContainers and MaxReadFindings, and every finding read must name
// a rule and a location path; after, its machines' counts, outcomes and
// device indexes must be consistent (checkMachines).
func Read(data []byte) (Run, string, error) {
	if len(data) > MaxReadSize {
		return Run{}, "", fmt.Errorf("report of %d bytes, more than %d (report.MaxReadSize)", len(data), MaxReadSize)
	}
	if err := checkShape(data); err != nil {
		return Run{}, "", fmt.Errorf("not read: %v", err)
	}
	var probe struct {
		Version string          `json:"version"`
		Runs    json.RawMessage `json:"runs"`
		Tool    json.RawMessage `json:"tool"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return Run{}, "", fmt.Errorf("not a kpack-lint JSON or SARIF report: %v", err)
	}
	switch {
	case probe.Runs != nil:
		r, err := readSARIF(data)
		if err == nil {
			err = checkLocations(r, "result")
		}
		if err == nil {
			err = checkMachines(r, sarifPaths)
		}
		return Sanitize(withRerun(r)), "sarif", err
	case probe.Tool != nil:
		r, err := readJSON(data)
		if err == nil {
			err = checkLocations(r, "finding")
		}
		if err == nil {
			err = checkMachines(r, jsonPaths)
		}
		return Sanitize(withRerun(r)), "json", err
	}
	return Run{}, "", errors.New("not a kpack-lint JSON or SARIF report (neither \"runs\" nor \"tool\" at the top level)")
}

// withRerun takes the run's rerun command from what it checked, so the
// report writes the commands it was written with.
func withRerun(r Run) Run {
	if r.Checked != nil && r.Checked.Rerun != nil {
		r.Rerun = *r.Checked.Rerun
	}
	return r
}

func readJSON(data []byte) (Run, error) {
	var in jsonReport
	if err := json.Unmarshal(data, &in); err != nil { // in place: a Decoder would copy data first
		return Run{}, fmt.Errorf("JSON report: %v", err)
	}
	if in.Tool.Name != "kpack-lint" {
		return Run{}, fmt.Errorf("JSON report of %q, not kpack-lint", in.Tool.Name)
	}
	r := Run{ToolName: in.Tool.Name, ToolVersion: in.Tool.Version, InformationURI: in.Tool.InformationURI,
		Checked: in.Checked, Inventory: in.Inventory, Matrix: in.Matrix, Machines: in.Machines, Notifications: in.Notifications}
	for i, jf := range in.Findings {
		if err := checkRead(jf.RuleID, jf.Location.Path); err != nil {
			return Run{}, fmt.Errorf("JSON report: finding %d: %v", i, err)
		}
		f := fromJSONFinding(jf)
		if err := checkVocabulary(f); err != nil {
			return Run{}, fmt.Errorf("JSON report: finding %d (%s %s): %v", i, f.RuleID, f.Location.Path, err)
		}
		r.Findings = append(r.Findings, f)
	}
	if err := checkDuplicates(r.Findings); err != nil {
		return Run{}, fmt.Errorf("JSON report: %v", err)
	}
	for i, n := range r.Notifications {
		if err := checkNotification(n); err != nil {
			return Run{}, fmt.Errorf("JSON report: notification %d: %v", i, err)
		}
	}
	r.Inputs = readInputs(r.Checked, r.Findings)
	if r.Checked != nil {
		r.PathPrefix = r.Checked.PathPrefix
	}
	if len(in.Artifacts) > 0 {
		sizes := map[artKey]int64{}
		for _, a := range in.Artifacts {
			sizes[artKey{a.Input, a.Path}] = a.Length
		}
		r.FileSize = func(input int, p string) (int64, bool) {
			n, ok := sizes[artKey{input, p}]
			return n, ok
		}
	}
	return r, nil
}

// checkLocations fails for a finding whose location or related location
// names no input of the report, or an absolute path or negative region
// (checkLocation, what the writers refuse); what names a finding ("finding"
// in JSON, "result" in SARIF) starts the error.
func checkLocations(r Run, what string) error {
	for i, f := range r.Findings {
		if err := checkLocation(r, f.Location); err != nil {
			return fmt.Errorf("%s %d (%s %s): location: %v", what, i, f.RuleID, f.Location.Path, err)
		}
		for j, rel := range f.Related {
			if err := checkLocation(r, rel); err != nil {
				return fmt.Errorf("%s %d (%s %s): related location %d: %v", what, i, f.RuleID, f.Location.Path, j, err)
			}
		}
	}
	return nil
}

// checkRead fails for a finding read back without a rule ID or a location
// path: no kpack-lint report has one.
func checkRead(ruleID, path string) error {
	switch {
	case ruleID == "":
		return errors.New("no rule ID")
	case path == "":
		return errors.New("no location path")
	}
	return nil
}

func fromJSONFinding(jf jsonFinding) finding.Finding {
	f := finding.Finding{
		RuleID: jf.RuleID, Level: jf.Level, Message: jf.Message, Location: fromJSONLocation(jf.Location),
		Kernels: jf.Kernels, Agents: jf.Agents, Targets: jf.Targets, Group: jf.Group, Loader: jf.Loader, KpackError: jf.KpackError,
		HIPError: jf.HIPError, HIPEffect: jf.HIPEffect, Machine: jf.OnMachine, Library: jf.Library, Effect: jf.Effect, Missing: jf.Missing, MissingTotal: max(jf.MissingTotal, len(jf.Missing)), Trace: jf.Trace, Fingerprint: jf.Fingerprint, Baseline: jf.BaselineState,
		Coverage: jf.Coverage, Grown: jf.Grown,
	}
	for _, rel := range jf.Related {
		f.Related = append(f.Related, fromJSONLocation(rel))
	}
	if s := jf.Suppression; s != nil {
		f.Suppression = &finding.Suppression{Justification: s.Justification, Source: s.Source, Expires: s.Expires, Expired: s.Expired}
	}
	return f
}

func fromJSONLocation(jl jsonLocation) finding.Location {
	l := finding.Location{Input: jl.Input, Path: jl.Path}
	if jl.Region != nil {
		l.Region = &finding.Region{Offset: jl.Region.Offset, Length: jl.Region.Length}
	}
	return l
}

// readInputs names the inputs: from "checked", else input-1... as many as
// the findings use.
func readInputs(k *Checked, fs []finding.Finding) []string {
	if k != nil && len(k.Inputs) > 0 {
		return k.Inputs
	}
	n := 1
	for _, f := range fs {
		n = max(n, f.Location.Input+1)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("input-%d", i+1)
	}
	return out
}

func readSARIF(data []byte) (Run, error) {
	log, err := sarif.FromBytes(data)
	if err != nil {
		return Run{}, fmt.Errorf("SARIF report: %v", err)
	}
	if len(log.Runs) != 1 || log.Runs[0].Tool.Driver == nil || log.Runs[0].Tool.Driver.Name != "kpack-lint" {
		return Run{}, errors.New("SARIF report: want one run of kpack-lint")
	}
	sr := log.Runs[0]
	d := sr.Tool.Driver
	r := Run{ToolName: d.Name, ToolVersion: deref(d.Version), InformationURI: deref(d.InformationURI)}
	if len(sr.Invocations) > 0 {
		inv := sr.Invocations[0]
		if len(inv.Properties) > 0 {
			r.Checked = &Checked{}
			if err := convert(inv.Properties, r.Checked); err != nil {
				return Run{}, fmt.Errorf("SARIF report: invocations[0].properties: %v", err)
			}
			r.PathPrefix = r.Checked.PathPrefix
		}
		for i, sn := range inv.ToolConfigurationNotifications {
			n := readNotification(sn)
			if err := checkNotification(n); err != nil {
				return Run{}, fmt.Errorf("SARIF report: invocations[0].toolConfigurationNotifications[%d]: %v", i, err)
			}
			r.Notifications = append(r.Notifications, n)
		}
	}
	if err := convert(sr.Properties["inventory"], &r.Inventory); err != nil {
		return Run{}, fmt.Errorf("SARIF report: inventory: %v", err)
	}
	if err := convert(sr.Properties["matrix"], &r.Matrix); err != nil {
		return Run{}, fmt.Errorf("SARIF report: matrix: %v", err)
	}
	if err := convert(sr.Properties["machineVerdicts"], &r.Machines); err != nil {
		return Run{}, fmt.Errorf("SARIF report: machineVerdicts: %v", err)
	}
	sizes := map[artKey]int64{}
	for _, a := range sr.Artifacts {
		if a.Location == nil || a.Length < 0 {
			continue
		}
		l, err := r.readLocation(a.Location, nil)
		if err != nil {
			return Run{}, err
		}
		sizes[artKey{l.Input, l.Path}] = int64(a.Length)
	}
	r.FileSize = func(input int, p string) (int64, bool) {
		n, ok := sizes[artKey{input, p}]
		return n, ok
	}
	for i, res := range sr.Results {
		f, err := r.readResult(res)
		if err == nil {
			err = checkRead(f.RuleID, f.Location.Path)
		}
		if err != nil {
			return Run{}, fmt.Errorf("SARIF report: result %d: %v", i, err)
		}
		if err := checkVocabulary(f); err != nil {
			return Run{}, fmt.Errorf("SARIF report: result %d (%s %s): %v", i, f.RuleID, f.Location.Path, err)
		}
		r.Findings = append(r.Findings, f)
	}
	if err := checkDuplicates(r.Findings); err != nil {
		return Run{}, fmt.Errorf("SARIF report: %v", err)
	}
	if r.Checked == nil {
		r.Inputs = readInputs(nil, r.Findings)
	} else {
		r.Inputs = r.Checked.Inputs
	}
	return r, nil
}

func (r Run) readResult(res *sarif.Result) (finding.Finding, error) {
	f := finding.Finding{RuleID: deref(res.RuleID), Level: finding.Level(deref(res.Level)), Message: sarifUntext(deref(res.Message.Text)),
		Baseline: deref(res.BaselineState)}
	f.Coverage, _ = res.PartialFingerprints[CoverageKey].(string)
	if fp, ok := res.PartialFingerprints[FingerprintKey].(string); ok {
		f.Fingerprint = fp
	}
	if len(res.Locations) == 0 || res.Locations[0].PhysicalLocation == nil {
		return f, errors.New("no location")
	}
	var err error
	pl := res.Locations[0].PhysicalLocation
	if f.Location, err = r.readLocation(pl.ArtifactLocation, pl.Region); err != nil {
		return f, err
	}
	for _, rel := range res.RelatedLocations {
		if rel.PhysicalLocation == nil {
			continue
		}
		l, err := r.readLocation(rel.PhysicalLocation.ArtifactLocation, rel.PhysicalLocation.Region)
		if err != nil {
			return f, err
		}
		f.Related = append(f.Related, l)
	}
	p := res.Properties
	for _, l := range []struct {
		key string
		dst *[]string
	}{{"kernels", &f.Kernels}, {"agents", &f.Agents}, {"trace", &f.Trace}, {"targets", &f.Targets}, {"missing", &f.Missing}} {
		if *l.dst, err = stringList(p, l.key); err != nil {
			return f, err
		}
	}
	for _, s := range []struct {
		key string
		dst *string
	}{{"group", &f.Group}, {"loader", &f.Loader}, {"kpackError", &f.KpackError}, {"hipError", &f.HIPError},
		{"hipEffect", &f.HIPEffect}, {"library", &f.Library}, {"effect", &f.Effect}} {
		if *s.dst, err = stringProp(p, s.key); err != nil {
			return f, err
		}
	}
	if _, ok := p["hipRelease"]; ok {
		f.Machine = &finding.OnMachine{}
		if err := convert(map[string]any(p), f.Machine); err != nil {
			return f, fmt.Errorf("machine properties: %v", err)
		}
	}
	if g, ok := p["grown"]; ok {
		f.Grown = &finding.Growth{}
		if err := convert(g, f.Grown); err != nil {
			return f, fmt.Errorf("grown: %v", err)
		}
	}
	f.MissingTotal = len(f.Missing)
	if v, ok := p["missingTotal"]; ok {
		n, isNum := v.(float64)
		if !isNum || n < 0 || n != float64(int(n)) || n > 1<<31 {
			return f, fmt.Errorf("properties.missingTotal: %s, want a count", typeWord(v))
		}
		f.MissingTotal = max(f.MissingTotal, int(n))
	}
	if len(res.Suppressions) > 0 {
		s := res.Suppressions[0]
		f.Suppression = &finding.Suppression{Justification: deref(s.Justification), Source: sourceOf(s.Location)}
		f.Suppression.Expires, _ = s.Properties["expires"].(string)
	}
	if ew, ok := p["expiredWaiver"].(map[string]any); ok {
		f.Suppression = &finding.Suppression{Expired: true}
		f.Suppression.Source, _ = ew["source"].(string)
		f.Suppression.Expires, _ = ew["expires"].(string)
		f.Suppression.Justification, _ = ew["justification"].(string)
	}
	return f, nil
}

func (r Run) fileSize(l finding.Location) (int64, bool) {
	if r.FileSize == nil {
		return 0, false
	}
	return r.FileSize(l.Input, l.Path)
}

// readLocation inverts artifactLocation and location: the base ID gives
// the input, the URI (without the path prefix) the path.
func (r Run) readLocation(al *sarif.ArtifactLocation, region *sarif.Region) (finding.Location, error) {
	if al == nil || al.URI == nil {
		return finding.Location{}, errors.New("location without a URI")
	}
	uri := *al.URI
	if r.PathPrefix != "" {
		uri = strings.TrimPrefix(uri, EscapePath(strings.TrimSuffix(r.PathPrefix, "/"))+"/")
	}
	p, err := url.PathUnescape(uri)
	if err != nil {
		return finding.Location{}, fmt.Errorf("URI %q: %v", uri, err)
	}
	l := finding.Location{Path: p}
	switch base := deref(al.URIBaseId); {
	case base == "POLICYROOT":
		l.Input = finding.PolicyInput
	case strings.HasPrefix(base, "INPUT"):
		n, err := strconv.Atoi(strings.TrimPrefix(base, "INPUT"))
		if err != nil || n < 1 {
			return l, fmt.Errorf("uriBaseId %q", base)
		}
		l.Input = n - 1
	}
	if region != nil && region.ByteOffset != nil && region.ByteLength != nil {
		l.Region = &finding.Region{Offset: int64(*region.ByteOffset), Length: int64(*region.ByteLength)}
		if n, ok := r.fileSize(l); ok && l.Region.Offset == 0 && l.Region.Length == n {
			l.Region = nil // the whole file: WriteSARIF's region of a location without one
		}
	}
	return l, nil
}

func readNotification(n *sarif.Notification) Notification {
	out := Notification{Level: finding.Level(n.Level)}
	if n.Message != nil {
		out.Message = sarifUntext(deref(n.Message.Text))
	}
	out.Kind, _ = n.Properties["kind"].(string)
	if len(n.Locations) > 0 {
		out.Source = sourceOf(n.Locations[0])
	}
	return out
}

// sourceOf is sourceLocation inverted: "policies.yaml:31".
func sourceOf(l *sarif.Location) string {
	if l == nil || l.PhysicalLocation == nil || l.PhysicalLocation.ArtifactLocation == nil {
		return ""
	}
	p, _ := url.PathUnescape(deref(l.PhysicalLocation.ArtifactLocation.URI))
	if reg := l.PhysicalLocation.Region; reg != nil && reg.StartLine != nil {
		return fmt.Sprintf("%s:%d", p, *reg.StartLine)
	}
	return p
}

// convert re-decodes a property value (JSON-shaped any) into dst; nil is
// left alone.
func convert(v any, dst any) error {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, dst)
}

// stringList is result property key, a list of strings (nil when
// absent); another type, or an element that is no string, is an error
// naming the property: a property is never read in part.
func stringList(p map[string]any, key string) ([]string, error) {
	v, ok := p[key]
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("properties.%s: %s, want a list of strings", key, typeWord(v))
	}
	out := make([]string, len(list))
	for i, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("properties.%s[%d]: %s, want a string", key, i, typeWord(x))
		}
		out[i] = s
	}
	return out, nil
}

// stringProp is result property key, a string ("" when absent); another
// type is an error naming the property.
func stringProp(p map[string]any, key string) (string, error) {
	v, ok := p[key]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("properties.%s: %s, want a string", key, typeWord(v))
	}
	return s, nil
}

// typeWord names the JSON type of a decoded value: "a number", "a list".
func typeWord(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// checkDuplicates fails for a report that holds one finding twice (the
// same rule, level, location, message, fingerprint and coverage key):
// check reports each once, and a copy would count twice or hide that a
// shard's own finding is missing. The error names both.
func checkDuplicates(fs []finding.Finding) error {
	seen := make(map[[32]byte]int, len(fs))
	for i, f := range fs {
		h := sha256.New()
		for _, s := range []string{f.RuleID, string(f.Level), strconv.Itoa(f.Location.Input), f.Location.Path, f.Message, finding.Fingerprint(f), finding.Coverage(f)} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		var k [32]byte
		h.Sum(k[:0])
		if j, ok := seen[k]; ok {
			return fmt.Errorf("finding %d (%s %s) is finding %d again: check reports each finding once", i, f.RuleID, f.Location.Path, j)
		}
		seen[k] = i
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
