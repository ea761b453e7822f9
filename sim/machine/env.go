package machine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocm-tools/kpack-lint/sim/hip"
	"github.com/rocm-tools/kpack-lint/targetid"
)

// Visible is one device a process sees.
type Visible struct {
	// Index is the HIP device index (hipSetDevice, cuda:N).
	Index int
	// Device is the device's index in Machine.Devices (enumeration order).
	Device int
	// Node is its KFD node id (Linux; HSA_OVERRIDE_GFX_VERSION_<node>).
	Node int
	// Below is the index HIP_VISIBLE_DEVICES counts it by: its place
	// among the GPUs ROCr exposes (after ROCR_VISIBLE_DEVICES) on Linux,
	// its enumeration index on Windows.
	Below int
	// Real is the ISA the device reports without an override; ISA the
	// one it reports to this process, which HIP's loads use.
	Real, ISA targetid.ID
	// Override is the setting that made ISA ("HSA_OVERRIDE_GFX_VERSION_2=11.0.0"),
	// "" when ISA is Real.
	Override string
}

// Note is one thing the environment did, for messages and the per-device
// trace: the variable (or "" for the platform) and what it did, in words.
type Note struct {
	Var, Text string
}

// View is what one process on a machine sees: the visible devices in HIP
// order and what the environment did.
type View struct {
	Windows bool
	Devices []Visible
	Notes   []Note
	// NoRuntime is set when ROCr does not initialise (an empty or
	// malformed HSA_OVERRIDE_GFX_VERSION on a release with the bug, an
	// empty ROCR_VISIBLE_DEVICES entry): HIP sees no device at all.
	NoRuntime bool
	// Hidden says why the process sees no device; nil when it sees one.
	Hidden *Hidden
}

// Hidden is why a process sees no device: the variable whose value left
// it without one (HSA_OVERRIDE_GFX_VERSION[_<node>], ROCR_VISIBLE_DEVICES,
// HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES) and that value, what the
// runtime did with it (Why, a clause with its source) and how to fix it
// (Fix, a clause naming the variable and a value that works).
type Hidden struct {
	Var, Value string
	Why, Fix   string
}

// hide records why the process sees no device; the first cause wins.
func (v *View) hide(key, val, why, fix string) {
	if v.Hidden == nil {
		v.Hidden = &Hidden{Var: key, Value: val, Why: why, Fix: fix}
	}
}

// View returns what a process on m sees: a Windows process (a PE binary)
// when windows is set, else a Linux one. Linux (ROCr): each GPU's
// override is applied (release permitting the per-node variable), then
// ROCR_VISIBLE_DEVICES filters and reorders, then HIP_VISIBLE_DEVICES (or,
// when it is empty, CUDA_VISIBLE_DEVICES) filters and reorders what ROCr
// exposes. Windows (PAL): only HIP_VISIBLE_DEVICES, which filters and keeps
// the enumeration order. m should have passed Validate.
func (m *Machine) View(windows bool) View {
	rel := m.release()
	v := View{Windows: windows}
	var below []Visible
	if windows {
		for _, k := range []string{EnvOverride, EnvRocrVisible} {
			if _, set := m.Env[k]; set {
				v.note(k, "not read on Windows: only the Linux ROCr runtime reads it (no reader in clr's PAL backend, amd-staging)")
			}
		}
		for _, k := range sortedKeys(m.Env) {
			if _, ok := overrideNode(k); ok {
				v.note(k, "not read on Windows")
			}
		}
		for i, d := range m.Devices {
			below = append(below, Visible{Device: i, Node: -1, Below: i, Real: d.ISA, ISA: d.ISA})
		}
		v.Devices = hipFilterWindows(m, rel, below, &v)
	} else {
		gpus, ok := m.rocrAgents(rel, &v)
		if !ok {
			v.NoRuntime = true
			return v
		}
		below, ok = m.rocrVisible(gpus, &v)
		if !ok {
			v.NoRuntime = true
			return v
		}
		if len(below) == 0 && len(surviving(gpus, nil)) == 0 {
			m.hideDropped(gpus, &v)
		}
		for i := range below {
			below[i].Below = i
		}
		v.Devices = hipFilterLinux(m, rel, below, &v)
	}
	for i := range v.Devices {
		v.Devices[i].Index = i
	}
	return v
}

// note records what a variable did, once.
func (v *View) note(k, text string) {
	n := Note{Var: k, Text: text}
	for _, o := range v.Notes {
		if o == n {
			return
		}
	}
	v.Notes = append(v.Notes, n)
}

// gpu is one GPU node of a Linux machine after its override: dropped when
// ROCr knows no ISA for it.
type gpu struct {
	vis     Visible
	dropped bool
	// dropKey=dropVal is the override that dropped it.
	dropKey, dropVal string
}

// rocrAgents applies the overrides to every GPU node (libhsakmt
// topology.c:1237-1251@1b1610fc: the per-node variable first, then the
// global one, GPU nodes only). ok is false when ROCr does not initialise.
func (m *Machine) rocrAgents(rel hip.Release, v *View) ([]gpu, bool) {
	xnack := m.Env[EnvXnack]
	out := make([]gpu, len(m.Devices))
	for i, d := range m.Devices {
		node := m.cpuNodes() + i
		g := gpu{vis: Visible{Device: i, Node: node, Real: d.ISA, ISA: d.ISA}}
		key, val, set := m.overrideFor(rel, node, v)
		if set {
			if !m.applyOverride(rel, &g, key, val, xnack, v) {
				return nil, false
			}
		}
		out[i] = g
	}
	return out, true
}

// overrideFor returns the override variable that applies to node: the
// per-node one where the release reads it, else the global one. An empty
// value on a release without the bug is unset (rocm-systems PR 5686),
// and an empty per-node value falls back to the global one.
func (m *Machine) overrideFor(rel hip.Release, node int, v *View) (key, val string, set bool) {
	perNode := fmt.Sprintf("%s%d", envOverrideNode, node)
	if val, ok := m.Env[perNode]; ok {
		switch {
		case !rel.PerNodeOverride.Value:
			v.note(perNode, fmt.Sprintf("not read by HIP %s: per-node overrides start in ROCm 6.3 (ROCR-Runtime 84567b64)", rel.Name))
		case val != "" || rel.OverrideBug.Value:
			return perNode, val, true
		}
	}
	if val, ok := m.Env[EnvOverride]; ok && (val != "" || rel.OverrideBug.Value) {
		return EnvOverride, val, true
	}
	if val, ok := m.Env[EnvOverride]; ok && val == "" {
		v.note(EnvOverride, fmt.Sprintf("empty: read as unset by HIP %s (rocm-systems PR 5686)", rel.Name))
	}
	return "", "", false
}

// applyOverride makes g report the ISA key=val names. It returns false
// when the value does not parse on a release with the bug (ROCr does not
// initialise, ROCR-Runtime#354).
func (m *Machine) applyOverride(rel hip.Release, g *gpu, key, val, xnack string, v *View) bool {
	setting := key + "=" + val
	ver, ok := parseGfxVersion(val)
	if !ok {
		what := "malformed"
		if val == "" {
			what = "empty"
		}
		v.note(key, fmt.Sprintf("%s: libhsakmt rejects it (sscanf \"%%u.%%u.%%u\", topology.c:1243-1246), the topology snapshot fails and ROCr does not initialise: no device (ROCR-Runtime#354; HIP %s)", what, rel.Name))
		v.hide(key, val, overrideWhy(rel, key, val), overrideFix(key, val, g.vis.Real))
		return false
	}
	p, ok := ver.processor()
	if !ok {
		v.note(key, fmt.Sprintf("%s names no ISA ROCr knows: GPU %d (%s) is dropped (amd_topology.cpp:166-172, \"Ignore unrecognized GPUs\")", setting, g.vis.Device, g.vis.Real))
		g.dropped, g.dropKey, g.dropVal = true, key, val
		return true
	}
	realVer, _ := versionOf(g.vis.Real.Processor)
	if !rel.OverrideBug.Value && realVer.major != ver.major {
		v.note(key, fmt.Sprintf("%s: HIP %s refuses an override to another major version (rocm-systems PR 5686): GPU %d keeps %s", setting, rel.Name, g.vis.Device, g.vis.Real))
		return true
	}
	isa := overriddenISA(g.vis.Real, p, xnack)
	g.vis.ISA, g.vis.Override = isa, setting
	v.note(key, fmt.Sprintf("%s: GPU %d (%s, KFD node %d) reports %s", setting, g.vis.Device, g.vis.Real, g.vis.Node, isa))
	return true
}

// rocrVisible applies ROCR_VISIBLE_DEVICES (core/runtime/
// amd_filter_device.cpp, RvdFilter::BuildUsrDeviceList): tokens split at
// commas, trimmed and upper-cased; at most one per GPU is read; a token
// starting with G is a UUID prefix of 5 to 20 characters matching exactly
// one device, else an index read by strtol(token, &end, 0) (0x hex, 0
// octal) that must use the whole token; the first token that fails, is
// out of range or repeats an index ends the list. Set but empty shows no
// device. The survivors are reordered by their place in the list; GPUs
// dropped for an unknown override ISA keep their index but never show.
// ok is false when ROCr does not initialise (an empty token).
func (m *Machine) rocrVisible(gpus []gpu, v *View) ([]Visible, bool) {
	val, set := m.Env[EnvRocrVisible]
	if !set {
		return surviving(gpus, nil), true
	}
	if val == "" {
		v.note(EnvRocrVisible, "set but empty: ROCr exposes no GPU (RvdFilter::SelectZeroDevices)")
		v.hide(EnvRocrVisible, val, "ROCR_VISIBLE_DEVICES is set but empty, so ROCr exposes no GPU (amd_filter_device.cpp RvdFilter::SelectZeroDevices)",
			"unset ROCR_VISIBLE_DEVICES, or list the GPUs to show by index ("+indexRange(len(gpus), "GPU")+") or GPU-<uuid> prefix")
		return nil, true
	}
	tokens := rocrTokens(val)
	rank := map[int]int{}
	stop := ""
	for i := 0; i < len(tokens) && i < len(gpus); i++ {
		tok := tokens[i]
		if tok == "" {
			v.note(EnvRocrVisible, fmt.Sprintf("entry %d is empty: RvdFilter::BuildUsrDeviceList reads token.at(0), which throws; hsa_init's handler makes ROCr fail to initialise (assumed): no device", i))
			fix := "unset ROCR_VISIBLE_DEVICES"
			if kept := nonEmpty(strings.Split(val, ",")); len(kept) > 0 {
				fix = fmt.Sprintf("drop the empty entry (ROCR_VISIBLE_DEVICES=%s) or unset the variable", strings.Join(kept, ","))
			}
			v.hide(EnvRocrVisible, val, fmt.Sprintf("entry %d of ROCR_VISIBLE_DEVICES is empty: ROCr's RvdFilter::BuildUsrDeviceList reads its first character, which throws, and ROCr does not initialise (assumed from hsa_init's exception handler)", i), fix)
			return nil, false
		}
		idx, ok := rocrToken(tok, m.Devices)
		why := ""
		switch {
		case !ok:
			why = "is not a device index or the UUID prefix of exactly one device"
		case idx < 0 || idx >= len(gpus):
			why = "is out of range"
		case hasKey(rank, idx):
			why = "repeats a device"
		}
		if why != "" {
			stop = fmt.Sprintf("entry %q %s: the list ends there (amd_filter_device.cpp BuildUsrDeviceList)", tok, why)
			v.note(EnvRocrVisible, stop)
			break
		}
		rank[idx] = len(rank)
	}
	if len(tokens) > len(gpus) {
		v.note(EnvRocrVisible, fmt.Sprintf("%d entries for %d GPUs: only the first %d are read", len(tokens), len(gpus), len(gpus)))
	}
	out := surviving(gpus, rank)
	if len(out) == 0 && len(surviving(gpus, nil)) > 0 {
		why := "every GPU it lists is dropped by its override"
		if len(rank) == 0 {
			why = stop
		}
		v.hide(EnvRocrVisible, val, fmt.Sprintf("ROCR_VISIBLE_DEVICES=%s shows no GPU: %s", val, why),
			"list the GPUs to show by index ("+indexRange(len(gpus), "GPU")+") or GPU-<uuid> prefix, e.g. ROCR_VISIBLE_DEVICES=0, or unset it")
	}
	v.note(EnvRocrVisible, fmt.Sprintf("%s=%s: ROCr exposes %s", EnvRocrVisible, val, describe(out, "ROCr GPU")))
	return out, true
}

// hasKey reports whether m has k.
func hasKey(m map[int]int, k int) bool { _, ok := m[k]; return ok }

// surviving lists the GPUs not dropped, in enumeration order, or, with a
// rank, those ranked, in rank order.
func surviving(gpus []gpu, rank map[int]int) []Visible {
	var out []Visible
	if rank == nil {
		for _, g := range gpus {
			if !g.dropped {
				out = append(out, g.vis)
			}
		}
		return out
	}
	byRank := make([]int, len(rank))
	for idx, r := range rank {
		byRank[r] = idx
	}
	for _, idx := range byRank {
		if !gpus[idx].dropped {
			out = append(out, gpus[idx].vis)
		}
	}
	return out
}

// rocrTokens splits a ROCR_VISIBLE_DEVICES value as std::getline(',')
// does (no empty token after a trailing comma), trimmed and upper-cased.
func rocrTokens(val string) []string {
	parts := strings.Split(val, ",")
	if strings.HasSuffix(val, ",") {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		parts[i] = strings.ToUpper(strings.TrimSpace(p))
	}
	return parts
}

// rocrToken reads one ROCR_VISIBLE_DEVICES token: a UUID prefix
// (RvdFilter::ProcessUuidToken: 5 to 20 characters, the prefix of exactly
// one device's UUID; a device without one has "Invalid-UUID") or an index
// (strtol base 0 over the whole token).
func rocrToken(tok string, devices []Device) (int, bool) {
	if tok[0] == 'G' {
		if len(tok) < 5 || len(tok) > 20 {
			return 0, false
		}
		found := -1
		for i, d := range devices {
			u := d.UUID
			if u == "" {
				u = "Invalid-UUID"
			}
			if strings.HasPrefix(u, tok) {
				if found >= 0 {
					return 0, false
				}
				found = i
			}
		}
		return found, found >= 0
	}
	return strtol0(tok)
}

// strtol0 is strtol(s, &end, 0) with *end == '\0' required: optional
// sign, then 0x/0X hex, 0 octal or decimal digits. Values outside int32
// come back out of range (-1), as the C code's int32_t cast does.
func strtol0(s string) (int, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	base := 10
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") && isHex(s[2]):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	if s == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return -1, true
		}
		return 0, false
	}
	if neg {
		n = -n
	}
	if n > 1<<31-1 || n < -(1<<31) {
		return -1, true
	}
	return int(n), true
}

// isHex reports whether c is a hex digit.
func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hipOrdinals returns the variable HIP reads its device list from: HIP_VISIBLE_DEVICES
// when non-empty, else CUDA_VISIBLE_DEVICES when non-empty (rocdevice.cpp:
// 500-505@rocm-6.2.0, the same on PAL paldevice.cpp:1431-1433).
func hipOrdinals(m *Machine, v *View) (key, val string) {
	if val := m.Env[EnvHIPVisible]; val != "" {
		if c := m.Env[EnvCUDAVisible]; c != "" {
			v.note(EnvCUDAVisible, "not read: HIP_VISIBLE_DEVICES is set and wins")
		}
		return EnvHIPVisible, val
	}
	if val := m.Env[EnvCUDAVisible]; val != "" {
		return EnvCUDAVisible, val
	}
	return "", ""
}

// hipFilterLinux applies HIP_VISIBLE_DEVICES on ROCr (clr rocclr/device/
// rocm/rocdevice.cpp:500-551@rocm-6.2.0): entries split at commas; an
// entry containing GPU- becomes the index of the first device whose UUID
// contains it (from 6.2); an entry must be the canonical decimal of an
// index in range (atoi and to_string agree), else it and everything after
// it are discarded; a repeated index is skipped; the order of the list is
// the new order.
func hipFilterLinux(m *Machine, rel hip.Release, below []Visible, v *View) []Visible {
	key, val := hipOrdinals(m, v)
	if key == "" {
		return below
	}
	var out []Visible
	seen := map[int]bool{}
	stop := ""
	for pos := 0; ; {
		end := strings.IndexByte(val[pos:], ',')
		if end < 0 {
			end = len(val)
		} else {
			end += pos
		}
		tok := val[pos:end]
		idx, ok := hipIndex(tok, m, rel, below)
		if !ok {
			stop = fmt.Sprintf("entry %q is not a device of the %d HIP sees: it and the rest are discarded (rocdevice.cpp:519-527)", tok, len(below))
			v.note(key, stop)
			break
		}
		if !seen[idx] {
			seen[idx] = true
			out = append(out, below[idx])
		}
		pos = end + 1
		if pos >= len(val) {
			break
		}
	}
	v.note(key, fmt.Sprintf("%s=%s: HIP shows %s", key, val, describe(out, "device")))
	if len(out) == 0 {
		v.hide(key, val, fmt.Sprintf("%s=%s shows no device: %s", key, val, stop), hipVisibleFix(key, len(below)))
	}
	return out
}

// hipIndex reads one Linux HIP_VISIBLE_DEVICES entry.
func hipIndex(tok string, m *Machine, rel hip.Release, below []Visible) (int, bool) {
	if strings.Contains(tok, "GPU-") && rel.HIPVisibleUUIDs.Value {
		for i, b := range below {
			if u := m.Devices[b.Device].UUID; u != "" && strings.Contains(u, tok) {
				return i, true
			}
		}
		return 0, false
	}
	return canonicalIndex(tok, len(below))
}

// canonicalIndex accepts "0", "1", ... below n, written as std::to_string
// writes them (no sign, space or leading zero).
func canonicalIndex(tok string, n int) (int, bool) {
	if tok == "" || len(tok) > 9 || strings.TrimLeft(tok, "0123456789") != "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	i, _ := strconv.Atoi(tok)
	return i, i < n
}

// hipFilterWindows applies HIP_VISIBLE_DEVICES on PAL (clr rocclr/device/
// pal/paldevice.cpp:1293-1361@rocm-6.2.0, parseRequestedDeviceList, and
// :1443-1447@amd-staging): strtok skips empty entries; an entry that
// contains GPU- (from 6.2) is compared after its first four characters
// with each device's PAL UUID (PCI.PALUUID, made of its PCI location, not
// ROCr's UUID) and replaced by the index of the first that matches; an
// entry must then be all digits and in range, else it and the rest are
// discarded (so a GPU- entry matching no device ends the list); the
// devices are created in enumeration order, so the order of the list
// does not matter.
func hipFilterWindows(m *Machine, rel hip.Release, devs []Visible, v *View) []Visible {
	key, val := hipOrdinals(m, v)
	if key == "" {
		return devs
	}
	want := map[int]bool{}
	stop := ""
	for _, tok := range strings.Split(val, ",") {
		if tok == "" {
			continue
		}
		idx, ok := palIndex(tok, m, rel, len(devs))
		if !ok {
			stop = fmt.Sprintf("entry %q is not a device: it and the rest are discarded (paldevice.cpp parseRequestedDeviceList)", tok)
			if strings.Contains(tok, "GPU-") && rel.HIPVisibleUUIDs.Value {
				stop = fmt.Sprintf("entry %q matches no device's PAL UUID (made of its PCI location: %s): it and the rest are discarded (paldevice.cpp parseRequestedDeviceList)", tok, palUUIDs(m))
			}
			v.note(key, stop)
			break
		}
		want[idx] = true
	}
	var out []Visible
	for _, d := range devs {
		if want[d.Device] {
			out = append(out, d)
		}
	}
	v.note(key, fmt.Sprintf("%s=%s: HIP shows %s (Windows keeps the enumeration order)", key, val, describe(out, "device")))
	if len(out) == 0 {
		v.hide(key, val, fmt.Sprintf("%s=%s shows no device: %s", key, val, stop), hipVisibleFix(key, len(devs)))
	}
	return out
}

// palIndex reads one Windows HIP_VISIBLE_DEVICES entry: an entry holding
// GPU- becomes the index of the first device whose PAL UUID equals the
// entry after its first four characters (strcmp(pch + 4, uuid)); a
// device without a PCI location has no PAL UUID here and matches
// nothing.
func palIndex(tok string, m *Machine, rel hip.Release, n int) (int, bool) {
	if strings.Contains(tok, "GPU-") && rel.HIPVisibleUUIDs.Value {
		for i, d := range m.Devices {
			if d.PCI != nil && tok[4:] == d.PCI.PALUUID() {
				return i, i < n
			}
		}
		return 0, false
	}
	if tok == "" || len(tok) > 9 || strings.TrimLeft(tok, "0123456789") != "" {
		return 0, false
	}
	i, _ := strconv.Atoi(tok)
	return i, i < n
}

// palUUIDs lists the devices' PAL UUIDs for a note: "GPU 0 GPU-0000300000000000,
// GPU 1 without a PCI location".
func palUUIDs(m *Machine) string {
	parts := make([]string, len(m.Devices))
	for i, d := range m.Devices {
		if d.PCI == nil {
			parts[i] = fmt.Sprintf("GPU %d without a PCI location", i)
			continue
		}
		parts[i] = fmt.Sprintf("GPU %d (%s) GPU-%s", i, d.PCI, d.PCI.PALUUID())
	}
	return strings.Join(parts, ", ")
}

// describe lists devices for a note: "GPU 1 (gfx1100) as device 0";
// as names what the place is ("device", "ROCr GPU").
func describe(devs []Visible, as string) string {
	if len(devs) == 0 {
		return "no device"
	}
	parts := make([]string, len(devs))
	for i, d := range devs {
		parts[i] = fmt.Sprintf("GPU %d (%s) as %s %d", d.Device, d.ISA, as, i)
	}
	return strings.Join(parts, ", ")
}

// hideDropped records a process whose GPUs were all dropped for an
// override naming no ISA ROCr knows (the first GPU's override).
func (m *Machine) hideDropped(gpus []gpu, v *View) {
	for _, g := range gpus {
		if !g.dropped {
			continue
		}
		fix := "name an ISA ROCr knows"
		if own, ok := versionOf(g.vis.Real.Processor); ok {
			fix += fmt.Sprintf(" (%s=%s is the device's own %s)", g.dropKey, own, g.vis.Real.Processor)
		}
		v.hide(g.dropKey, g.dropVal, fmt.Sprintf("%s=%s names no ISA ROCr knows, so ROCr drops the GPU (amd_topology.cpp:166-172, \"Ignore unrecognized GPUs\")", g.dropKey, g.dropVal),
			fix+", or unset it")
		return
	}
}

// overrideWhy says why an override value makes ROCr fail to initialise
// (libhsakmt topology.c:1237-1251, :1991-1996@1b1610fc; ROCR-Runtime#354).
func overrideWhy(rel hip.Release, key, val string) string {
	const fails = "libhsakmt rejects it (topology.c, sscanf \"%u.%u.%u\"), the topology snapshot fails and ROCr does not initialise (ROCR-Runtime#354)"
	if val == "" {
		return fmt.Sprintf("%s is set but empty, and HIP %s (before rocm-systems PR 5686) does not read an empty value as unset: %s", key, rel.Name, fails)
	}
	why := fmt.Sprintf("%s=%s is not MAJOR.MINOR.STEPPING in decimal numbers: %s", key, val, fails)
	if !rel.OverrideBug.Value {
		why += fmt.Sprintf("; HIP %s reads an empty value as unset (rocm-systems PR 5686), and a malformed one is assumed to fail as before", rel.Name)
	}
	return why
}

// overrideFix says how to write an override that works for a device
// whose real ISA is real: the value val probably meant ("11.0" is
// 11.0.0, "gfx1100" is 11.0.0) and the device's own version.
func overrideFix(key, val string, real targetid.ID) string {
	own, okOwn := versionOf(real.Processor)
	if val == "" {
		fix := "unset " + key + " instead of leaving it empty"
		if okOwn {
			fix += fmt.Sprintf(", or give a version (%s=%s is the device's own %s)", key, own, real.Processor)
		}
		return fix
	}
	var hints []string
	guess, okGuess := guessVersion(val)
	if okGuess {
		p, _ := guess.processor()
		hints = append(hints, fmt.Sprintf("%s=%s makes the device report %s", key, guess, p.Name))
	}
	if okOwn && (!okGuess || guess != own) {
		hints = append(hints, fmt.Sprintf("%s is its own %s", own, real.Processor))
	}
	fix := "write it as three decimal numbers"
	if len(hints) > 0 {
		fix += " (" + strings.Join(hints, ", ") + ")"
	}
	return fix + ", or unset it"
}

// guessVersion reads what a malformed override probably meant: two
// numbers ("11.0", "11.0.") with the stepping left out, or a processor
// name ("gfx1100"). ok is false when that names no ISA ROCr knows.
func guessVersion(val string) (gfxVersion, bool) {
	s := strings.TrimSpace(val)
	var v gfxVersion
	var ok bool
	switch {
	case strings.HasPrefix(strings.ToLower(s), "gfx"):
		v, ok = versionOf(strings.ToLower(s))
	case strings.Count(s, ".") == 1:
		v, ok = parseGfxVersion(s + ".0")
	case strings.Count(s, ".") == 2 && strings.HasSuffix(s, "."):
		v, ok = parseGfxVersion(s + "0")
	}
	if !ok {
		return gfxVersion{}, false
	}
	_, known := v.processor()
	return v, known
}

// hipVisibleFix says how to write HIP_VISIBLE_DEVICES (or
// CUDA_VISIBLE_DEVICES) for n devices.
func hipVisibleFix(key string, n int) string {
	return fmt.Sprintf("list the devices to show by index (%s) or GPU-<uuid>, e.g. %s=0, or unset it", indexRange(n, "device"), key)
}

// indexRange words the valid indices of n things: "0, the only GPU",
// "0 to 3 of the 4 devices".
func indexRange(n int, thing string) string {
	if n == 1 {
		return "0, the only " + thing
	}
	return fmt.Sprintf("0 to %d of the %d %ss", n-1, n, thing)
}

// nonEmpty returns the items of list that are not empty.
func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
