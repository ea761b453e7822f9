package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// SARIFSchema is the $schema written into SARIF output.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// FingerprintKey is the partialFingerprints key holding Fingerprint(f),
// the cause: what baselines match and waivers name.
const FingerprintKey = "kpackLint/v1"

// CoverageKey is the partialFingerprints key holding finding.Coverage(f),
// which changes when a finding comes to cover more than its baseline's.
const CoverageKey = "kpackLint/coverage/v1"

// AlertKey is the partialFingerprints key GitHub code scanning builds an
// alert's identity from, with the repository, the file path and the rule
// ("SARIF support for code scanning": data for preventing duplicated
// alerts). It holds the coverage key too, so a finding that grew is a new
// alert and one that did not keeps its alert. The CodeQL Action's
// upload-sarif computes this key only for results with a
// region.startLine and never overwrites one that is set
// (codeql-action src/fingerprints.ts, addFingerprints and
// locationUpdateCallback); kpack-lint's regions are byte ranges.
const AlertKey = "primaryLocationLineHash"

// BaseID returns the SARIF uriBaseId of input i (0-based) in a run with n
// inputs. With at most one input every path is relative to "SRCROOT", the
// name GitHub code scanning and CodeQL use for the checked-out repository
// root; with several inputs the paths of input i are relative to
// "INPUT<i+1>" ("INPUT1" for the first input given on the command line).
// The input paths themselves are never written: run.originalUriBaseIds only
// describes each base ID in words.
//
// The policy file (finding.PolicyInput) is relative to "POLICYROOT", the
// working directory kpack-lint ran in.
func BaseID(i, n int) string {
	if i == finding.PolicyInput {
		return "POLICYROOT"
	}
	if n <= 1 {
		return "SRCROOT"
	}
	return fmt.Sprintf("INPUT%d", i+1)
}

// WriteSARIF writes r as a SARIF 2.1.0 log with one run. Every rule goes into
// tool.driver.rules; every finding (except Level "none") becomes one result
// with one physical location, its related locations, the fingerprint under
// partialFingerprints[FingerprintKey], the coverage key under CoverageKey
// and AlertKey, and its kernels, agents, group,
// loader, kpackError, hipError, hipEffect, the machine fields
// (finding.OnMachine: machine, hipRelease, devices, deviceISA, outcome,
// registration, launch, fixes...), library, effect, missing, trace and,
// for a finding new because it grew, grown (finding.Growth) as result
// properties.
//
// The output passes Microsoft's SARIF Multitool and GitHub's ingestion
// rules (the shared sarif-validate tool, run by .ci/run on the goldens).
func WriteSARIF(w io.Writer, r Run) error {
	r = Sanitize(r)
	entries, _, err := prepare(r)
	if err != nil {
		return err
	}
	arts := collectArtifacts(entries, len(r.Inputs), r.FileSize)
	arts.prefix = r.PathPrefix
	run := &sarif.Run{
		Tool:               sarif.Tool{Driver: sarifDriver(r)},
		Artifacts:          arts.list,
		Invocations:        sarifInvocations(r),
		Results:            make([]*sarif.Result, 0, len(entries)),
		OriginalUriBaseIDs: baseIDDescriptions(arts.list, r.Inputs),
		PropertyBag:        runProperties(r),
	}
	for _, a := range arts.list { // prefixed after indexing, so the order stays that of the input paths
		a.Location.URI = ptr(arts.uri(*a.Location.URI))
	}
	for _, e := range entries {
		run.Results = append(run.Results, sarifResult(e, arts))
	}
	log := &sarif.Report{
		Version: string(sarif.Version210),
		Schema:  SARIFSchema,
		Runs:    []*sarif.Run{run},
	}
	return encodeJSON(w, log)
}

func sarifDriver(r Run) *sarif.ToolComponent {
	d := &sarif.ToolComponent{
		Name:           r.ToolName,
		Version:        optional(r.ToolVersion),
		InformationURI: optional(r.InformationURI),
		Rules:          make([]*sarif.ReportingDescriptor, 0, len(r.Rules)),
	}
	if v := strings.TrimPrefix(r.ToolVersion, "v"); semverRE.MatchString(v) {
		d.SemanticVersion = &v
	}
	for _, rule := range r.Rules {
		d.Rules = append(d.Rules, sarifRule(rule))
	}
	return d
}

// semverRE is the regular expression suggested by semver.org.
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

func sarifRule(rule finding.Rule) *sarif.ReportingDescriptor {
	return &sarif.ReportingDescriptor{
		ID:                   rule.ID,
		Name:                 optional(rule.Name),
		ShortDescription:     textMessage(rule.Title),
		FullDescription:      textMessage(rule.Text),
		Help:                 sarifHelp(rule),
		HelpURI:              optional(rule.HelpURI),
		DefaultConfiguration: &sarif.ReportingConfiguration{Level: string(rule.DefaultLevel())},
	}
}

func sarifHelp(rule finding.Rule) *sarif.MultiformatMessageString {
	if rule.Help == "" {
		return nil
	}
	md := rule.Help
	if rule.HelpURI != "" {
		md += fmt.Sprintf("\n\nSee [%s %s](%s).", rule.ID, rule.Name, rule.HelpURI)
	}
	return &sarif.MultiformatMessageString{Text: &rule.Help, Markdown: &md}
}

func textMessage(s string) *sarif.MultiformatMessageString {
	return &sarif.MultiformatMessageString{Text: &s}
}

func sarifResult(e entry, arts artifacts) *sarif.Result {
	f := e.f
	res := &sarif.Result{
		RuleID:              &f.RuleID,
		RuleIndex:           ptr(uint(e.ruleIndex)),
		Level:               ptr(string(e.level)),
		Message:             sarif.Message{Text: ptr(sarifText(f.Message))},
		PartialFingerprints: partialFingerprints(f),
		PropertyBag:         resultProperties(f),
		BaselineState:       optional(f.Baseline),
	}
	res.Locations = []*sarif.Location{arts.location(f.Location)}
	if f.Suppressed() {
		res.Suppressions = []*sarif.Suppression{sarifSuppression(f)}
	}
	for _, rel := range f.Related {
		loc := arts.location(rel)
		loc.Id = ptr(uint(len(res.RelatedLocations) + 1))
		loc.Message = &sarif.Message{Text: ptr("related file " + sarifText(rel.Path))}
		res.RelatedLocations = append(res.RelatedLocations, loc)
	}
	return res
}

// partialFingerprints holds f's cause fingerprint and its coverage key,
// twice: under its own key and under the one GitHub matches alerts by.
func partialFingerprints(f finding.Finding) map[string]any {
	cov := finding.Coverage(f)
	return map[string]any{FingerprintKey: finding.Fingerprint(f), CoverageKey: cov, AlertKey: cov}
}

// resultProperties holds the finding's details; empty ones are left out.
// encoding/json writes map keys sorted, so the output order is fixed.
func resultProperties(f finding.Finding) sarif.PropertyBag {
	p := sarif.Properties{}
	addList(p, "kernels", f.Kernels)
	addList(p, "agents", f.Agents)
	addList(p, "targets", f.Targets)
	addList(p, "trace", escapeAll(f.Trace))
	addString(p, "group", f.Group)
	addString(p, "loader", f.Loader)
	addString(p, "kpackError", f.KpackError)
	addString(p, "hipError", f.HIPError)
	addString(p, "hipEffect", f.HIPEffect)
	if f.Machine != nil {
		for k, v := range asProperties(f.Machine) {
			p[k] = v
		}
	}
	addString(p, "library", f.Library)
	addString(p, "effect", f.Effect)
	addList(p, "missing", f.Missing)
	if n := cutTotal(f); n > 0 {
		p["missingTotal"] = n
	}
	if f.Grown != nil {
		p["grown"] = f.Grown
	}
	if s := f.Suppression; s != nil && s.Expired {
		p["expiredWaiver"] = map[string]string{"source": s.Source, "expires": s.Expires, "justification": s.Justification}
	}
	if len(p) == 0 {
		return sarif.PropertyBag{}
	}
	return sarif.PropertyBag{Properties: p}
}

func addList(p sarif.Properties, key string, v []string) {
	if len(v) > 0 {
		p[key] = v
	}
}

func addString(p sarif.Properties, key, v string) {
	if v != "" {
		p[key] = v
	}
}

// artKey identifies one file: its input and its path inside it.
type artKey struct {
	input int
	path  string
}

// artifacts is run.artifacts: every referenced file once, sorted by input
// and path, with the index of each.
type artifacts struct {
	prefix  string // Run.PathPrefix
	list    []*sarif.Artifact
	keys    []artKey // the file of each of list
	index   map[artKey]int
	nInputs int
	size    func(input int, path string) (int64, bool) // may be nil
}

func collectArtifacts(entries []entry, nInputs int, size func(int, string) (int64, bool)) artifacts {
	var keys []artKey
	add := func(l finding.Location) { keys = append(keys, artKey{l.Input, l.Path}) }
	for _, e := range entries {
		add(e.f.Location)
		for _, rel := range e.f.Related {
			add(rel)
		}
	}
	slices.SortFunc(keys, func(a, b artKey) int {
		return cmp.Or(cmp.Compare(a.input, b.input), strings.Compare(a.path, b.path))
	})
	keys = slices.Compact(keys)
	a := artifacts{index: make(map[artKey]int, len(keys)), nInputs: nInputs, size: size, keys: keys}
	for i, k := range keys {
		a.index[k] = i
		length := -1 // unknown; go-sarif always writes "length"
		if n, ok := a.fileSize(k); ok {
			length = int(n)
		}
		a.list = append(a.list, &sarif.Artifact{Location: a.artifactLocation(k, false), Length: length})
	}
	return a
}

func (a artifacts) fileSize(k artKey) (int64, bool) {
	if a.size == nil {
		return 0, false
	}
	n, ok := a.size(k.input, k.path)
	return n, ok && n >= 0
}

// artifactLocation names file k by URI and base ID, and by its index into
// run.artifacts when withIndex is set.
func (a artifacts) artifactLocation(k artKey, withIndex bool) *sarif.ArtifactLocation {
	loc := &sarif.ArtifactLocation{
		URI:       ptr(EscapePath(k.path)),
		URIBaseId: ptr(BaseID(k.input, a.nInputs)),
	}
	if withIndex {
		loc.URI = ptr(a.uri(*loc.URI))
		loc.Index = ptr(uint(a.index[k]))
	}
	return loc
}

// uri puts the path prefix (check --path-prefix) before an escaped path.
func (a artifacts) uri(escaped string) string {
	if a.prefix == "" {
		return escaped
	}
	return EscapePath(strings.TrimSuffix(a.prefix, "/")) + "/" + escaped
}

// location is the SARIF location of l. Every location gets a region (the
// multitool warns about a result location without one): l.Region, or the
// whole file when its size is known, or else the file's start.
func (a artifacts) location(l finding.Location) *sarif.Location {
	k := artKey{l.Input, l.Path}
	region := &sarif.Region{ByteOffset: ptr(0)}
	switch n, ok := a.fileSize(k); {
	case l.Region != nil:
		region = &sarif.Region{ByteOffset: ptr(int(l.Region.Offset)), ByteLength: ptr(int(l.Region.Length))}
	case ok:
		region.ByteLength = ptr(int(n))
	}
	return &sarif.Location{PhysicalLocation: &sarif.PhysicalLocation{
		ArtifactLocation: a.artifactLocation(k, true),
		Region:           region,
	}}
}

// baseIDDescriptions describes every base ID used by arts, in words only:
// the machine paths of the inputs are never written.
func baseIDDescriptions(list []*sarif.Artifact, inputs []string) map[string]*sarif.ArtifactLocation {
	m := map[string]*sarif.ArtifactLocation{}
	for _, art := range list {
		id := *art.Location.URIBaseId
		if _, ok := m[id]; ok {
			continue
		}
		m[id] = &sarif.ArtifactLocation{Description: &sarif.Message{Text: ptr(baseIDText(id, inputs))}}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

func baseIDText(id string, inputs []string) string {
	switch id {
	case "SRCROOT":
		return "The root of the checked input (the repository checkout in code scanning)."
	case "POLICYROOT":
		return "The working directory kpack-lint ran in; the policy file's path is relative to it."
	}
	n := strings.TrimPrefix(id, "INPUT")
	var i int
	if _, err := fmt.Sscan(n, &i); err == nil && i >= 1 && i <= len(inputs) {
		return fmt.Sprintf("The root of input %d on the command line (%s).", i, inputBase(inputs[i-1]))
	}
	return fmt.Sprintf("The root of input %s on the command line.", n)
}

// EscapePath turns a slash-separated relative path into a relative URI
// reference: every byte except RFC 3986 unreserved characters and '/' is
// percent-encoded. So ':' (which in a first segment would read as a URI
// scheme, as in "torch_gfx90a:xnack-.kpack") becomes %3A and '+' becomes
// %2B, and the path round-trips through any URI parser unchanged.
func EscapePath(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if isUnreserved(c) || c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xf])
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ptr[T any](v T) *T { return &v }

// inputBase is an input's last path element: its name without the machine
// path that leads to it.
func inputBase(name string) string {
	name = strings.TrimRight(strings.ReplaceAll(name, `\`, "/"), "/")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || name == "." || name == ".." {
		return "a directory"
	}
	return name
}

// sarifSuppression records the waiver that covers f: kind "external" (a
// file beside the code), its reason as justification, and its place in the
// policy or waiver file. The GUID is derived from the fingerprint and the
// waiver, so the output stays byte-identical.
func sarifSuppression(f finding.Finding) *sarif.Suppression {
	s := f.Suppression
	sum := sha256.Sum256([]byte(finding.Fingerprint(f) + "\x00" + s.Source))
	h := hex.EncodeToString(sum[:16])
	guid := h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
	out := &sarif.Suppression{
		Kind:          "external",
		Status:        ptr("accepted"),
		Justification: ptr(s.Justification),
		Guid:          &guid,
		Location:      sourceLocation(s.Source),
	}
	if s.Expires != "" { // read back by merge and --baseline, so no format loses it
		out.PropertyBag = sarif.PropertyBag{Properties: sarif.Properties{"expires": s.Expires}}
	}
	return out
}

// sourceLocation turns "policies.yaml:31" into a location relative to
// POLICYROOT with a start line.
func sourceLocation(src string) *sarif.Location {
	file, line := splitSource(src)
	loc := &sarif.Location{PhysicalLocation: &sarif.PhysicalLocation{
		ArtifactLocation: &sarif.ArtifactLocation{URI: ptr(EscapePath(file)), URIBaseId: ptr(BaseID(finding.PolicyInput, 0))},
	}}
	if line > 0 {
		loc.PhysicalLocation.Region = &sarif.Region{StartLine: &line}
	}
	return loc
}

// splitSource splits "file:line" (line 0 when there is none).
func splitSource(src string) (string, int) {
	i := strings.LastIndexByte(src, ':')
	if i < 0 {
		return src, 0
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil {
		return src, 0
	}
	return src[:i], n
}

// sarifInvocations states what the run checked (invocations[0].properties)
// and its configuration notifications; nothing about the machine.
func sarifInvocations(r Run) []*sarif.Invocation {
	if r.Checked == nil && len(r.Notifications) == 0 {
		return nil
	}
	inv := &sarif.Invocation{ExecutionSuccessful: ptr(true)}
	if r.Checked != nil {
		inv.PropertyBag = sarif.PropertyBag{Properties: asProperties(r.Checked)}
	}
	for _, n := range r.Notifications {
		sn := &sarif.Notification{Level: string(n.Level), Message: &sarif.Message{Text: ptr(sarifText(n.Message))},
			PropertyBag: sarif.PropertyBag{Properties: sarif.Properties{"kind": n.Kind}}}
		if n.Source != "" {
			sn.Locations = []*sarif.Location{sourceLocation(n.Source)}
		}
		inv.ToolConfigurationNotifications = append(inv.ToolConfigurationNotifications, sn)
	}
	return []*sarif.Invocation{inv}
}

// runProperties carries the inventory, the load matrix and the machines'
// verdicts, which a later run reads back (baseline, merge).
func runProperties(r Run) sarif.PropertyBag {
	p := sarif.Properties{}
	if len(r.Inventory) > 0 {
		p["inventory"] = r.Inventory
	}
	if len(r.Matrix) > 0 {
		p["matrix"] = r.Matrix
	}
	if len(r.Machines) > 0 {
		p["machineVerdicts"] = r.Machines
	}
	if len(p) == 0 {
		return sarif.PropertyBag{}
	}
	return sarif.PropertyBag{Properties: p}
}

// asProperties turns a struct into a property bag with the keys of its
// JSON form (encoding/json writes map keys sorted).
func asProperties(v any) sarif.Properties {
	data, _ := json.Marshal(v)
	var p sarif.Properties
	_ = json.Unmarshal(data, &p)
	return p
}

// sarifText is s (escape.String'd) as a SARIF plain-text message
// (message.text): '\\', '[' and ']' get a backslash, as SARIF 2.1.0
// §3.11.6 requires of a message without embedded links, so no "[text](x)"
// of an input is a link; so do '<', '>' and '&' (no raw HTML or entity),
// a ':' before "//" and the '.' of "www." (no autolink), for consumers
// that render the text as GitHub Flavored Markdown (see mdEscape).
// sarifUntext inverts it.
func sarifText(s string) string {
	s = escape.String(s)
	if !strings.ContainsAny(s, `\[]<>&`) && !strings.Contains(s, "://") && !hasWWW(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(`\[]<>&`, c) >= 0 || c == ':' && strings.HasPrefix(s[i+1:], "//") ||
			c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www") {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// sarifUntext reads a message sarifText wrote: a backslash before an ASCII
// punctuation character is dropped; any other is kept (a report written
// before sarifText).
func sarifUntext(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isASCIIPunct reports the ASCII punctuation characters CommonMark lets a
// backslash escape.
func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// hasWWW reports whether s holds "www." in any case (a GFM www autolink).
func hasWWW(s string) bool {
	for i := strings.IndexByte(s, '.'); i >= 0; {
		if i >= 3 && strings.EqualFold(s[i-3:i], "www") {
			return true
		}
		j := strings.IndexByte(s[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}
