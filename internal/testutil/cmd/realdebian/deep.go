package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The --deep part of the step: check --deep decodes every code object of
// the real bundles, which the ground truth's llvm-readelf lines describe
// (e_flags, amdhsa.target), and must find them consistent (no KPL009);
// then one entry is mutated as make.sh's mutate.py eflags does (the
// gfx1030 code object of librocrand's bundle made to say gfx1100 in its
// e_flags) and check --deep must find exactly that one (KPL009).

// Object is one bundle entry's code object as gt.py read it: Debian 12's
// with llvm-readelf -h --notes (AMDHSATarget, "amdgcn-amd-amdhsa--gfx1030"),
// Debian 13's with LLVM 19's llvm-readobj --file-headers (Target, the
// target ID its e_flags give: EF_AMDGPU_MACH_* and the XNACK/SRAMECC
// ON/OFF flags, "gfx90a:xnack+").
type Object struct {
	AMDHSATarget string `json:"amdhsa_target"`
	Target       string `json:"target"`
	EFlags       string `json:"e_flags"`
	Size         int64  `json:"size"`
}

// target is the object's target ID, "" when the tools gave none.
func (o Object) target() string {
	if o.Target != "" {
		return o.Target
	}
	_, t, _ := strings.Cut(o.AMDHSATarget, "--")
	return t
}

// mutated names the entry the mutation rewrites and what it makes it say.
const (
	mutatePackage = "librocrand1"
	mutateEntry   = "hipv4-amdgcn-amd-amdhsa--gfx1030"
	mutateFlags   = 0x41 // EF_AMDGPU_MACH_AMDGCN_GFX1100 (LLVM AMDGPUUsage)
	mutateTarget  = "gfx1100"
)

// checkDeep runs check --deep on the extracted folders (every variant's
// agents: --variant all) and on a copy of librocrand with one mutated
// entry, and compares the KPL009 findings with what the ground truth
// expects.
func checkDeep(bin, policy string, roots []string, truths []Truth, root string, sum *total) error {
	rep, took, err := runReport(bin, append([]string{"check", "--deep", "--policy", policy, "--variant", "all", "--format", "json", "--fail-on", "none"}, roots...)...)
	if err != nil {
		return err
	}
	res, err := Compare(truths, rep)
	if err != nil {
		return err
	}
	want, got := expectedMismatches(truths), embeddedFindings(rep, "KPL009")
	fmt.Printf("real-debian: check --deep --variant all (extracted): %.2f s; %d HIP entries decoded, KPL009 on %d wrappers (llvm-readelf: %d with a code object for another target than its entry ID); %d of %d wrapper x agent verdicts agreed\n",
		took.Seconds(), objects(truths), len(got), len(want), res.Agreed, res.Verdicts)
	sum.runs++
	sum.verdicts += res.Verdicts
	sum.agreed += res.Agreed
	if res.Agreed != res.Verdicts || !sameSet(want, got) {
		return fmt.Errorf("check --deep: KPL009 on %v, want %v; %d of %d verdicts agree", keys(got), keys(want), res.Agreed, res.Verdicts)
	}
	return checkMutation(bin, truths, roots, root)
}

// checkMutation copies librocrand's library, rewrites the e_flags of its
// gfx1030 entry to gfx1100's and expects one KPL009 on that wrapper.
func checkMutation(bin string, truths []Truth, roots []string, root string) error {
	var t Truth
	var lib string
	for _, tr := range truths {
		for _, r := range roots {
			if tr.Package == mutatePackage && filepath.Base(r) == tr.Package {
				t, lib = tr, filepath.Join(r, filepath.FromSlash(tr.Binary))
			}
		}
	}
	if lib == "" {
		return fmt.Errorf("mutation: no extracted %s", mutatePackage)
	}
	data, err := os.ReadFile(lib)
	if err != nil {
		return err
	}
	off, err := entryFlagsOffset(data, t.Wrappers[0], mutateEntry)
	if err != nil {
		return fmt.Errorf("mutation: %s: %w", t.Binary, err)
	}
	binary.LittleEndian.PutUint32(data[off:], mutateFlags)
	dir := filepath.Join(root, "mutated")
	out := filepath.Join(dir, filepath.FromSlash(t.Binary))
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	rep, took, err := runReport(bin, "check", "--deep", "--no-policy", "--target", "gfx1030", "--format", "json", "--fail-on", "none", dir)
	if err != nil {
		return err
	}
	got := embeddedFindings(rep, "KPL009")
	key := fmt.Sprintf("%s[embedded]#%d", t.Binary, t.Wrappers[0].Index)
	msg := ""
	for _, f := range rep.Findings {
		if f.RuleID == "KPL009" {
			msg = f.Message
		}
	}
	fmt.Printf("real-debian: check --deep on %s with entry %s mutated to say %s (e_flags %#x at offset %d): %.2f s; KPL009 on %v\n",
		filepath.Base(t.Binary), mutateEntry, mutateTarget, mutateFlags, off, took.Seconds(), keys(got))
	if len(got) != 1 || !got[key] || !strings.Contains(msg, mutateEntry) || !strings.Contains(msg, "says "+mutateTarget) {
		return fmt.Errorf("mutation: KPL009 on %v (%q), want one on %s naming %s and %s", keys(got), msg, key, mutateEntry, mutateTarget)
	}
	return nil
}

// entryFlagsOffset returns the file offset of e_flags of the code object
// in entry id of wrapper w's bundle: .hip_fatbin (debug/elf) + the
// wrapper's bundle offset + the entry's offset from the bundle's table.
func entryFlagsOffset(data []byte, w Wrapper, id string) (int, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	sec := f.Section(".hip_fatbin")
	if sec == nil {
		return 0, fmt.Errorf("no .hip_fatbin")
	}
	start := int(sec.Offset) + w.FatbinOffset
	b := data[start:]
	if !bytes.HasPrefix(b, []byte("__CLANG_OFFLOAD_BUNDLE__")) {
		return 0, fmt.Errorf("no uncompressed bundle at .hip_fatbin+%d", w.FatbinOffset)
	}
	le := binary.LittleEndian
	n, p := int(le.Uint64(b[24:])), 32
	for range n {
		off, size, idLen := le.Uint64(b[p:]), le.Uint64(b[p+8:]), int(le.Uint64(b[p+16:]))
		name := string(b[p+24 : p+24+idLen])
		p += 24 + idLen
		if name == id && size >= 64 {
			return start + int(off) + 48, nil
		}
	}
	return 0, fmt.Errorf("no entry %s in the bundle", id)
}

// expectedMismatches are the wrappers whose ground-truth code objects say
// another target than their entry ID (amdhsa.target, or the e_flags'
// target), or none.
func expectedMismatches(truths []Truth) map[string]bool {
	out := map[string]bool{}
	for _, t := range truths {
		for _, w := range t.Wrappers {
			for id, o := range w.Objects {
				_, target, _ := strings.Cut(id, "--")
				if o.target() != target {
					out[fmt.Sprintf("%s[embedded]#%d", t.Binary, w.Index)] = true
				}
			}
		}
	}
	return out
}

// embeddedFindings lists the embedded wrapper keys of the report's
// findings of one rule.
func embeddedFindings(rep Report, rule string) map[string]bool {
	out := map[string]bool{}
	for _, f := range rep.Findings {
		if f.RuleID != rule {
			continue
		}
		for _, k := range f.Kernels {
			vs, _ := expand(k)
			for _, v := range vs {
				out[fmt.Sprintf("%s[embedded]#%d", v.path, v.index)] = true
			}
		}
	}
	return out
}

// runReport runs kpack-lint and reads its JSON report.
func runReport(bin string, args ...string) (Report, time.Duration, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var rep Report
	if err != nil {
		return rep, took, fmt.Errorf("kpack-lint %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.Bytes(), 5))
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return rep, took, fmt.Errorf("kpack-lint %s: the JSON report does not read: %v", strings.Join(args, " "), err)
	}
	return rep, took, nil
}

func objects(ts []Truth) int {
	n := 0
	for _, t := range ts {
		for _, w := range t.Wrappers {
			n += len(w.Objects)
		}
	}
	return n
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
