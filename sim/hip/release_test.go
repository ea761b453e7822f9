package hip

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/targetid"
)

// TestReleaseCellsCiteSources walks every Cell of every row: each names
// its source.
func TestReleaseCellsCiteSources(t *testing.T) {
	for _, r := range Releases() {
		v := reflect.ValueOf(r)
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if f.Kind() != reflect.Struct {
				continue
			}
			src := f.FieldByName("Source")
			if !src.IsValid() {
				continue
			}
			if strings.TrimSpace(src.String()) == "" {
				t.Errorf("release %s: cell %s has no source", r.Name, v.Type().Field(i).Name)
			}
		}
		if r.Covers == "" {
			t.Errorf("release %s: no Covers", r.Name)
		}
		// What users are told cites public sources in plain words: no
		// file-index ids, no research-note words.
		for what, c := range map[string]string{"Kpack": r.Cite.Kpack, "KpackOff": r.Cite.KpackOff, "Fat": r.Cite.Fat, "Launch": r.Cite.Launch} {
			if strings.TrimSpace(c) == "" {
				t.Errorf("release %s: no Cite.%s", r.Name, what)
			}
			if indexID.MatchString(c) || strings.Contains(c, "unproven") || strings.Contains(c, "nearest proof") || strings.Contains(c, "notes ") {
				t.Errorf("release %s: Cite.%s uses research-note words: %s", r.Name, what, c)
			}
		}
	}
}

// indexID is a file-index id ("index 66615623207", "index id 5617...",
// "index 02ba0621"), which users cannot look up.
var indexID = regexp.MustCompile(`\bindex (id )?[0-9a-f]{6,}`)

func TestNames(t *testing.T) {
	want := []string{"5.2", "5.6", "5.7", "6.1", "6.2", "6.3", "7.2", "7.12", "7.13", "10.0", "newest"}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	if Newest().Name != "newest" {
		t.Errorf("Newest() = %s", Newest().Name)
	}
}

// TestReleaseTable pins each row's behaviour cells; the comment of each
// case names the source (notes/hip-releases.md section 0).
func TestReleaseTable(t *testing.T) {
	type row struct {
		kpack    KpackMode
		fat      FatMode
		generic  int
		spirv    bool
		bug      bool
		perNode  bool
		uuids    bool
		loader   Loader
		builtIn  bool
		gfx1250G bool
	}
	want := map[string]row{
		// hipamd 5.2.3 hip_platform.cpp:79 (HIPK unknown), hip_code_object.cpp:489 (abort)
		"5.2": {KpackUnknown, FatAbort, 0, false, true, false, false, LegacyLoader, false, false},
		// hipamd 5.4.0 hip_code_object.cpp:485-486 (all or nothing)
		"5.6": {KpackUnknown, FatAllOrNothing, 0, false, true, false, false, LegacyLoader, false, false},
		"5.7": {KpackUnknown, FatAllOrNothing, 0, false, true, false, false, LegacyLoader, false, false},
		// clr 6.2.0 hip_fatbin.cpp:276-280 (break); rocdevice.cpp:518 (GPU- from 6.2); 84567b64 (per node from 6.3)
		"6.1": {KpackUnknown, FatStopAtFirst, 0, false, true, false, false, LegacyLoader, false, false},
		"6.2": {KpackUnknown, FatStopAtFirst, 0, false, true, false, true, LegacyLoader, false, false},
		"6.3": {KpackUnknown, FatStopAtFirst, 0, false, true, true, true, LegacyLoader, false, false},
		// index 02ba0621 ExtractFatBinaryUsingCOMGR, TargetGenericMap (29)
		"7.2": {KpackUnknown, FatStopAtFirst, 29, true, true, true, true, LegacyLoader, false, false},
		// TheRock core/CMakeLists.txt:165-171@7.12, :289@7.13; 6b0e43f3 ExtractKpackBinary (PR 2622)
		"7.12": {KpackPerProcess, FatStopAtFirst, 29, true, true, true, true, LegacyLoader, true, false},
		"7.13": {KpackPerProcess, FatStopAtFirst, 29, true, true, true, true, LegacyLoader, true, false},
		"10.0": {KpackPerProcess, FatStopAtFirst, 29, true, false, true, true, LegacyLoader, true, false},
		// index 66615623207: PR 9167, PR 9498, PR 9741 (gfx1250); PR 5686
		"newest": {KpackPerDevice, FatPerDevice, 30, true, false, true, true, FallthroughLoader, true, true},
	}
	gfx1250 := targetid.MustParse("gfx1250:sramecc+")
	for _, r := range Releases() {
		w, ok := want[r.Name]
		if !ok {
			t.Errorf("release %s not pinned", r.Name)
			continue
		}
		_, g1250 := r.GenericTarget(gfx1250)
		got := row{r.Kpack.Value, r.Fat.Value, len(r.Generic.Value), r.SPIRV.Value, r.OverrideBug.Value,
			r.PerNodeOverride.Value, r.HIPVisibleUUIDs.Value, r.Loader.Value, r.KpackBuiltIn.Value, g1250}
		if got != w {
			t.Errorf("release %s = %+v, want %+v", r.Name, got, w)
		}
	}
}

// TestReleaseSymptoms pins what the user sees per release (notes 1, 2e).
func TestReleaseSymptoms(t *testing.T) {
	tests := []struct {
		release string
		cell    func(Release) Symptom
		want    Symptom
	}{
		// hipamd 5.2.3 hip_code_object.cpp:489: guarantee(false, ...)
		{"5.2", func(r Release) Symptom { return r.FatFailed.Value }, Symptom{Aborted, Aborted, "", ""}},
		// 5.4/5.5 null fbd_info, 5.6 SIGSEGV (ROCm/clr#4)
		{"5.6", func(r Release) Symptom { return r.FatFailed.Value }, Symptom{ErrNoBinaryForGpu, Crash, "", ""}},
		// clr 5.7: hipErrorInvalidKernelFile mapped to 98
		{"5.7", func(r Release) Symptom { return r.FatFailed.Value }, Symptom{ErrNoBinaryForGpu, ErrInvalidDeviceFunction, "", ""}},
		// clr 6.2.0 hip_platform.cpp:611-617
		{"6.2", func(r Release) Symptom { return r.FatNoCode.Value }, Symptom{ErrNoBinaryForGpu, ErrInvalidDeviceFunction, "", ErrInvalidDeviceFunction}},
		// rocm-systems#2805, TheRock#5543 on 7.10 (0xC0000005)
		{"7.2", func(r Release) Symptom { return r.FatFailed.Value }, Symptom{ErrInvalidImage, Crash, "", ErrInvalidDeviceFunction}},
		// clr 6.2.0 hip_global.cpp:151: guarantee(modules_ != nullptr)
		{"6.2", func(r Release) Symptom { return r.KpackUnsupported.Value }, Symptom{NotRegistered, Aborted, "", ""}},
		// 6b0e43f3 ExtractKpackBinary: any kpack error is hipErrorInvalidImage
		{"10.0", func(r Release) Symptom { return r.KpackFailed.Value }, Symptom{ErrInvalidImage, ErrInvalidImage, ErrInvalidKernelFile, ErrInvalidDeviceFunction}},
		// PR 9167's description: device 1 segfaults
		{"10.0", func(r Release) Symptom { return r.KpackForeign.Value }, Symptom{"", Crash, "", ErrInvalidDeviceFunction}},
		// PR 11580: hipErrorNotSupported not propagated before PR 10150
		{"10.0", func(r Release) Symptom { return r.KpackUnsupported.Value }, Symptom{ErrNotSupported, Crash, "", ErrInvalidDeviceFunction}},
		// PR 10150
		{"newest", func(r Release) Symptom { return r.KpackUnsupported.Value }, Symptom{ErrNotSupported, ErrNotSupported, "", ErrInvalidDeviceFunction}},
		// BuildProgram: dev_programs_[device_id] == nullptr
		{"newest", func(r Release) Symptom { return r.KpackNoCode.Value }, Symptom{"", ErrInvalidKernelFile, "", ErrInvalidDeviceFunction}},
		// ExtractKpackBinary: loaded_code_objects.empty()
		{"newest", func(r Release) Symptom { return r.KpackNoneLoaded.Value }, Symptom{ErrInvalidKernelFile, ErrInvalidKernelFile, "", ErrInvalidDeviceFunction}},
		// the only device without a code object: the initial hipErrorInvalidImage
		{"newest", func(r Release) Symptom { return r.FatFailed.Value }, Symptom{ErrInvalidImage, ErrInvalidImage, ErrInvalidKernelFile, ErrInvalidDeviceFunction}},
		{"newest", func(r Release) Symptom { return r.FatNoCode.Value }, Symptom{"", ErrInvalidKernelFile, "", ErrInvalidDeviceFunction}},
		// a load's buffer that is not an ELF: AddDevProgram's hipErrorInvalidKernelFile (6b0e43f3, index 66615623207)
		{"10.0", func(r Release) Symptom { return r.KpackRejected.Value }, Symptom{ErrInvalidKernelFile, ErrInvalidKernelFile, "", ErrInvalidDeviceFunction}},
		{"newest", func(r Release) Symptom { return r.KpackRejected.Value }, Symptom{ErrInvalidKernelFile, ErrInvalidKernelFile, "", ErrInvalidDeviceFunction}},
	}
	for _, tt := range tests {
		r, err := Lookup(tt.release)
		if err != nil {
			t.Fatal(err)
		}
		if got := tt.cell(r); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.release, got, tt.want)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := map[string]string{
		"":                "newest",
		"newest":          "newest",
		"latest":          "newest",
		"NEWEST":          "newest",
		"5.2":             "5.2",
		"5.2.3":           "5.2",
		"rocm-5.2.3":      "5.2",
		"4.5.2":           "5.2",
		"5.3.3":           "5.2",
		"5.4.0":           "5.6",
		"5.7.1":           "5.7",
		"6.0":             "6.1",
		"6.2.4":           "6.2",
		"6.3.1":           "6.3",
		"6.4":             "7.2",
		"6.4.3":           "7.2",
		"7.1.1":           "7.2",
		"7.11":            "7.2",
		"therock-7.12":    "7.12",
		"7.13.0a20260508": "7.13",
		"7.14":            "10.0",
		"7.14.1":          "10.0",
		"10.0":            "10.0",
		"10.1":            "newest",
	}
	for in, want := range tests {
		r, err := Lookup(in)
		if err != nil || r.Name != want {
			t.Errorf("Lookup(%q) = %s, %v; want %s", in, r.Name, err, want)
		}
	}
	bad := map[string]string{
		"7.5":    "7.2",
		"7.3":    "7.2",
		"newset": "newest",
		"6.5":    "7.2",  // 6.4 is the 7.2 row
		"3.0":    "5.2",  // the oldest row, from 4.5
		"9.9":    "10.0", // no 9.x: the nearest row of any major version
		"gfx942": "",
		"10.2":   "newest",
	}
	for in, suggest := range bad {
		_, err := Lookup(in)
		var ue *UnknownReleaseError
		if !errors.As(err, &ue) {
			t.Errorf("Lookup(%q): %v, want *UnknownReleaseError", in, err)
			continue
		}
		if ue.Suggestion != suggest {
			t.Errorf("Lookup(%q) suggests %q, want %q", in, ue.Suggestion, suggest)
		}
		msg := err.Error()
		if !strings.Contains(msg, "5.2, 5.6, 5.7, 6.1, 6.2, 6.3, 7.2, 7.12, 7.13, 10.0, newest") || !strings.Contains(msg, in) {
			t.Errorf("Lookup(%q) message %q", in, msg)
		}
	}
}

// TestArchListPerRelease: the generic map per release (notes 3).
func TestArchListPerRelease(t *testing.T) {
	tests := []struct {
		release, agent string
		want           []string
	}{
		{"newest", "gfx1250:sramecc+", []string{"gfx1250:sramecc+", "gfx12-5-generic:sramecc+"}}, // PR 9741
		{"10.0", "gfx1250:sramecc+", []string{"gfx1250:sramecc+"}},                               // 6b0e43f3: 29 entries
		{"newest", "gfx1251:sramecc+", []string{"gfx1251:sramecc+"}},                             // not in HIP's map
		{"newest", "gfx942:sramecc+:xnack-", []string{"gfx942:sramecc+:xnack-", "gfx9-4-generic:sramecc+:xnack-"}},
		{"newest", "gfx90a:sramecc+:xnack-", []string{"gfx90a:sramecc+:xnack-"}},
		{"7.2", "gfx1153", []string{"gfx1153", "gfx11-generic"}},
		{"6.3", "gfx1100", []string{"gfx1100"}}, // no map before 6.4
	}
	for _, tt := range tests {
		r, _ := Lookup(tt.release)
		if got := r.ArchList(targetid.MustParse(tt.agent)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s ArchList(%s) = %q, want %q", tt.release, tt.agent, got, tt.want)
		}
	}
}

// TestArchListUnchanged: the "10.0" row gives what kpack-lint simulated
// before releases were modelled (targetid.GenericTarget) for every device
// ISA of every processor; newest differs for gfx1250 alone (PR 9741).
func TestArchListUnchanged(t *testing.T) {
	n := 0
	for _, p := range targetid.Processors() {
		for _, isa := range targetid.AgentISAs(targetid.ID{Processor: p.Name}) {
			want := []string{isa.String()}
			if g, ok := targetid.GenericTarget(isa); ok {
				want = append(want, g.String())
			}
			if got := release100.ArchList(isa); !reflect.DeepEqual(got, want) {
				t.Errorf("10.0 ArchList(%s) = %q, want %q", isa, got, want)
			}
			if got := Newest().ArchList(isa); isa.Processor != "gfx1250" && !reflect.DeepEqual(got, want) {
				t.Errorf("newest ArchList(%s) = %q, want %q", isa, got, want)
			}
			n++
		}
	}
	if n < 100 {
		t.Errorf("only %d ISAs checked", n)
	}
}

// TestSelectEntryPerRelease: generic entries and SPIR-V only from ROCm 6.4
// (index 02ba0621 ExtractFatBinaryUsingCOMGR).
func TestSelectEntryPerRelease(t *testing.T) {
	entries := []string{"hipv4-amdgcn-amd-amdhsa--gfx11-generic", "hipv4-spirv64-amd-amdhsa--amdgcnspirv", "hipv4-amdgcn-amd-amdhsa--gfx942"}
	tests := []struct {
		release, agent string
		want           int
		ok             bool
	}{
		{"newest", "gfx1151", 0, true},
		{"7.2", "gfx1151", 0, true},
		{"6.3", "gfx1151", -1, false},
		{"newest", "gfx1030", 1, true},
		{"6.2", "gfx1030", -1, false},
		{"5.2", "gfx942:sramecc+:xnack-", 2, true},
	}
	for _, tt := range tests {
		r, _ := Lookup(tt.release)
		got, ok := r.SelectEntry(entries, targetid.MustParse(tt.agent))
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s SelectEntry(%s) = %d, %v; want %d, %v", tt.release, tt.agent, got, ok, tt.want, tt.ok)
		}
	}
}

// TestSelectEntryGenericMap: the generic fallback goes through the
// release's TargetGenericMap (notes 3): a gfx12-5-generic entry serves a
// gfx1250 device on newest only (PR 9741), never a gfx1251 one.
func TestSelectEntryGenericMap(t *testing.T) {
	entries := []string{"hipv4-amdgcn-amd-amdhsa--gfx12-5-generic"}
	tests := []struct {
		release, agent string
		ok             bool
	}{
		{"newest", "gfx1250:sramecc+", true},
		{"10.0", "gfx1250:sramecc+", false},
		{"newest", "gfx1251:sramecc+", false},
	}
	for _, tt := range tests {
		r, _ := Lookup(tt.release)
		if _, ok := r.SelectEntry(entries, targetid.MustParse(tt.agent)); ok != tt.ok {
			t.Errorf("%s SelectEntry(%s) ok = %v, want %v", tt.release, tt.agent, ok, tt.ok)
		}
	}
}

// TestSelectEntryNewestAsBefore: the newest release picks what the lookup
// kpack-lint used before releases were modelled (native, then a generic
// entry of LLVM's family, then SPIR-V: llvmFamilyPick) for every device
// ISA, gfx1251 aside (HIP's map has no gfx1251).
func TestSelectEntryNewestAsBefore(t *testing.T) {
	var entries []string
	for _, p := range targetid.Processors() {
		if p.Generic {
			entries = append(entries, BundleEntryPrefix+p.Name, BundleEntryPrefix+p.Name+":xnack-")
		}
	}
	entries = append(entries, BundleEntryPrefix+"gfx942:sramecc+:xnack-")
	newest := Newest()
	for _, p := range targetid.Processors() {
		for _, isa := range targetid.AgentISAs(targetid.ID{Processor: p.Name}) {
			if p.Generic || p.Name == "gfx1251" || p.Retired {
				continue
			}
			gi, gok := newest.SelectEntry(entries, isa)
			wi, wok := llvmFamilyPick(entries, isa)
			if gi != wi || gok != wok {
				t.Errorf("%s: newest %d %v, package %d %v", isa, gi, gok, wi, wok)
			}
		}
	}
}

// release100 is the "10.0" row.
var release100, _ = row("10.0")

// llvmFamilyPick is the bundle lookup kpack-lint used before releases were
// modelled: the first compatible entry, else one built for a generic
// target covering the agent in LLVM's table, else SPIR-V.
func llvmFamilyPick(entryIDs []string, agent targetid.ID) (int, bool) {
	generic, spirv := -1, -1
	for i, e := range entryIDs {
		id, ok := EntryTarget(e)
		switch {
		case !ok:
			if spirv < 0 && IsSPIRVEntry(e) {
				spirv = i
			}
		case targetid.Compatible(id, agent):
			return i, true
		case generic < 0 && targetid.CompatibleOrGeneric(id, agent):
			generic = i
		}
	}
	if generic >= 0 {
		return generic, true
	}
	return spirv, spirv >= 0
}

// TestLaunchRules pins how each release's launch returns a failed
// lookup, and that each cell cites the file, lines and tag it was read at
// (hipamd/clr hip_platform.cpp), or says it is inferred and names the
// nearest source.
func TestLaunchRules(t *testing.T) {
	want := map[string]LaunchRule{
		"5.2":  LaunchAllDeviceFunction,                                           // hipamd hip_platform.cpp:659-661@rocm-5.2.3
		"5.6":  LaunchKeepSharedObject,                                            // :616-622@rocm-5.4.0, :560-566@rocm-5.6.0
		"5.7":  LaunchKeepSharedObject,                                            // clr :568-574@rocm-5.7.0
		"6.1":  LaunchKeepNoBinary,                                                // clr :599-605@rocm-6.1.0
		"6.2":  LaunchKeepNoBinary,                                                // clr :611-617@rocm-6.2.0
		"6.3":  LaunchKeepNoBinary,                                                // clr :611-617@release/rocm-rel-6.3.0.1
		"7.2":  LaunchCast,                                                        // rocm-systems#2805
		"7.12": LaunchKeepThree, "7.13": LaunchKeepThree, "10.0": LaunchKeepThree, // PR 8501's description, PR 10150's diff
		"newest": LaunchKeepAll, // PRs 10150, 8501
	}
	bySymbol := map[string]bool{"5.2": false, "5.6": false, "5.7": false, "6.1": false, "6.2": true, "6.3": true,
		"7.2": true, "7.12": true, "7.13": true, "10.0": true, "newest": true}
	read := regexp.MustCompile(`hip_platform\.cpp:\d+-\d+@(rocm-\d|release/)`)
	for _, r := range Releases() {
		if r.Launch.Value != want[r.Name] {
			t.Errorf("%s: launch rule %v, want %v", r.Name, r.Launch.Value, want[r.Name])
		}
		if r.FuncBySymbol.Value != bySymbol[r.Name] {
			t.Errorf("%s: hipGetFuncBySymbol %v, want %v", r.Name, r.FuncBySymbol.Value, bySymbol[r.Name])
		}
		src := r.Launch.Source
		if !read.MatchString(src) && !(strings.Contains(src, "inferred") || strings.Contains(src, "PR ")) {
			t.Errorf("%s: launch source cites no file:line@tag, PR or inference: %s", r.Name, src)
		}
		if strings.Contains(src, "inferred") && !strings.Contains(src, "nearest") {
			t.Errorf("%s: inferred launch source names no nearest source: %s", r.Name, src)
		}
	}
}

// TestLookupSymptoms: from 6.2 every failing symptom says what
// hipGetFuncBySymbol gives (RCCL's "invalid device function"); none
// before, none for a device that runs or a process that aborts.
func TestLookupSymptoms(t *testing.T) {
	for _, r := range Releases() {
		for name, c := range map[string]Cell[Symptom]{"KpackFailed": r.KpackFailed, "FatFailed": r.FatFailed, "FatNoCode": r.FatNoCode, "KpackRejected": r.KpackRejected} {
			s := c.Value
			switch {
			case s == (Symptom{}) || s.Launch == Aborted:
				if s.Lookup != "" {
					t.Errorf("%s %s: lookup %q on %+v", r.Name, name, s.Lookup, s)
				}
			case r.FuncBySymbol.Value && s.Lookup != ErrInvalidDeviceFunction:
				t.Errorf("%s %s: lookup %q, want %s", r.Name, name, s.Lookup, ErrInvalidDeviceFunction)
			case !r.FuncBySymbol.Value && s.Lookup != "":
				t.Errorf("%s %s: lookup %q without hipGetFuncBySymbol", r.Name, name, s.Lookup)
			}
		}
	}
}
