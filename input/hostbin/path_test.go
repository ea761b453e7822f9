package hostbin_test

import (
	"slices"
	"testing"

	"github.com/rocm-tools/kpack-lint/input/hostbin"
)

func TestNormalizeSearchPath(t *testing.T) {
	tests := []struct {
		in   string
		f    hostbin.Format
		want string
	}{
		{`..\.kpack\x.kpack`, hostbin.FormatPE, "../.kpack/x.kpack"},
		{`..\.kpack/x.kpack`, hostbin.FormatPE, "../.kpack/x.kpack"},
		{`..\.kpack\x.kpack`, hostbin.FormatELF, `..\.kpack\x.kpack`},
		{"../.kpack/x.kpack", hostbin.FormatELF, "../.kpack/x.kpack"},
	}
	for _, tc := range tests {
		if got := hostbin.NormalizeSearchPath(tc.in, tc.f); got != tc.want {
			t.Errorf("NormalizeSearchPath(%q, %s) = %q, want %q", tc.in, tc.f, got, tc.want)
		}
	}
}

func TestIsAbs(t *testing.T) {
	tests := []struct {
		in   string
		f    hostbin.Format
		want bool
	}{
		{"/opt/rocm/.kpack/x.kpack", hostbin.FormatELF, true},
		{"../.kpack/x.kpack", hostbin.FormatELF, false},
		{`C:\x.kpack`, hostbin.FormatELF, false},
		{`C:\ROCm\x.kpack`, hostbin.FormatPE, true},
		{"d:/ROCm/x.kpack", hostbin.FormatPE, true},
		{`\\server\share\x.kpack`, hostbin.FormatPE, true},
		{"/x.kpack", hostbin.FormatPE, true},
		{`\x.kpack`, hostbin.FormatPE, true},
		{"C:x.kpack", hostbin.FormatPE, false},
		{`..\.kpack\x.kpack`, hostbin.FormatPE, false},
		{"", hostbin.FormatPE, false},
	}
	for _, tc := range tests {
		if got := hostbin.IsAbs(tc.in, tc.f); got != tc.want {
			t.Errorf("IsAbs(%q, %s) = %v, want %v", tc.in, tc.f, got, tc.want)
		}
	}
}

func TestSplitPathList(t *testing.T) {
	if got := hostbin.SplitPathList("/a::/b:", hostbin.FormatELF); !slices.Equal(got, []string{"/a", "/b"}) {
		t.Errorf("ELF: %q", got)
	}
	if got := hostbin.SplitPathList(`C:\a;;D:\b`, hostbin.FormatPE); !slices.Equal(got, []string{`C:\a`, `D:\b`}) {
		t.Errorf("PE: %q", got)
	}
	if got := hostbin.SplitPathList("", hostbin.FormatELF); got != nil {
		t.Errorf("empty: %q", got)
	}
}

func TestFormatSectionNames(t *testing.T) {
	if hostbin.FormatPE.RefSection() != ".kpackrf" || hostbin.FormatPE.FatBinSection() != ".hipFatB" ||
		hostbin.FormatELF.RefSection() != ".rocm_kpack_ref" || hostbin.FormatELF.FatBinSection() != ".hipFatBinSegment" {
		t.Error("section names")
	}
}
