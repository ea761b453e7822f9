package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/errs"
	"github.com/rocm-tools/kpack-lint/internal/util/inflate"
)

// maxDecompressedFlag is --max-decompressed, shared by check, explain and
// explain-db: the run's budget of decompressed bytes (inflate.Budget).
func maxDecompressedFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "max-decompressed", Value: flagSize(inflate.DefaultMaxBytes),
		Usage: "SIZE of decompressed data the whole run may decode (tarball, .deb and .rpm streams, zip members, compressed sections and bundles, --deep's code objects), " +
			"e.g. 16GiB; past it the run exits 2"}
}

// xzFlag is --xz, shared by check, explain and explain-db: the decoder
// of the xz blocks of packages read in place.
func xzFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "xz", Value: "auto", EnvVars: []string{"KPACK_LINT_XZ"},
		Usage: "decoder of the xz blocks of packages read in place: auto (liblzma.so.5 loaded into the process; else XZ Utils' xz from PATH, one process per block; else the built-in one), " +
			"liblzma, go (the built-in decoder, 1.5-3x slower), or the path of an xz program (XZ Utils 5.2 or newer)"}
}

// xzDecoder reads --xz: the decoder of xz blocks (lint.XZDecoder).
func xzDecoder(c *ucli.Context) (lint.XZ, error) {
	s := c.String("xz")
	z, err := lint.XZDecoder(s)
	if err != nil {
		return z, errs.Usagef("--xz %s: %v; want auto, liblzma, go or the path of XZ Utils' xz (5.2 or newer)", strconv.Quote(s), err)
	}
	return z, nil
}

// maxDecompressed reads --max-decompressed in bytes.
func maxDecompressed(c *ucli.Context) (int64, error) {
	s := c.String("max-decompressed")
	n, ok := parseSize(s)
	if !ok {
		return 0, errs.Usagef("--max-decompressed %q: want a size from 1 byte to 1 PiB, e.g. 16GiB, 512MiB, 20GB or 8000000000 (bytes)", s)
	}
	return n, nil
}

// flagSize writes n bytes as a flag value: "4GiB".
func flagSize(n int64) string { return strings.ReplaceAll(inflate.Size(n), " ", "") }

// maxSize is the largest size parseSize accepts: 1 PiB.
const maxSize = 1 << 50

// sizeUnits are the units parseSize reads, lower case: binary with or
// without "iB" (k = KiB), SI with "B" (KB = 1000).
var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
}

// parseSize reads a size in bytes: a number (a decimal fraction allowed)
// and an optional unit, case-insensitive, a space between allowed
// ("4GiB", "1.5 gib", "512M", "20GB", "100000"); ok is false for anything
// else and for sizes under 1 byte or over maxSize.
func parseSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	unit, ok := sizeUnits[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok || i == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, false
	}
	n := math.Floor(v * unit)
	if math.IsNaN(n) || n < 1 || n > maxSize {
		return 0, false
	}
	return int64(n), true
}

// limitText words the run's spent budget of decompressed bytes with its
// flag.
func limitText(e *inflate.LimitError) string {
	return fmt.Sprintf("decompressing %s passed the run's budget of %s of decompressed data (--max-decompressed); it was not read further: "+
		"raise --max-decompressed for a build that needs more", e.What, inflate.Size(e.Limit))
}
