package hostbin

import "strings"

// NormalizeSearchPath returns p with '/' separators. PE search paths may use
// '\' (Windows std::filesystem accepts both), so for FormatPE every '\'
// becomes '/'; ELF paths are returned unchanged ('\' is an ordinary file
// name byte on Linux).
func NormalizeSearchPath(p string, f Format) string {
	if f == FormatPE {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

// IsAbs reports whether the search path p is not resolved against the
// binary's directory. ELF: a leading '/'. PE: a drive letter followed by a
// separator ("C:\", "C:/"), a UNC or device path ("\\server", "//server"),
// or a leading '/' or '\' (rooted on the binary's drive). A drive-relative
// path such as "C:foo" is not absolute.
func IsAbs(p string, f Format) bool {
	if f != FormatPE {
		return strings.HasPrefix(p, "/")
	}
	p = NormalizeSearchPath(p, f)
	if strings.HasPrefix(p, "/") {
		return true
	}
	return len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && p[2] == '/'
}

func isLetter(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// SplitPathList splits a ROCM_KPACK_PATH or ROCM_KPACK_PATH_PREFIX value
// as the runtime does (split_path_list in rocm-kpack): on ':' for ELF
// (Linux) and ';' for PE (Windows), dropping empty entries. It returns nil
// for an empty value.
func SplitPathList(list string, f Format) []string {
	sep := ":"
	if f == FormatPE {
		sep = ";"
	}
	var out []string
	for _, e := range strings.Split(list, sep) {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}
