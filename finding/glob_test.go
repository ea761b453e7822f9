package finding

import (
	"math/rand"
	"path"
	"strings"
	"testing"
	"time"
)

// match agrees with path.Match on globs of literals, stars and slashes
// (random ones over a small alphabet), and on globs with '?' and classes.
func TestMatchAgreesWithPathMatch(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	word := func(alpha string, n int) string {
		var b strings.Builder
		for range rng.Intn(n) {
			b.WriteByte(alpha[rng.Intn(len(alpha))])
		}
		return b.String()
	}
	for range 200000 {
		g, name := word("ab/**#?", 8), word("ab/#", 10)
		want, err := path.Match(g, name)
		if err != nil {
			continue
		}
		if got := match(g, name); got != want {
			t.Fatalf("match(%q, %q) = %v, path.Match %v", g, name, got, want)
		}
	}
}

// waiver-glob-quadratic: a long literal chunk after a star against a long
// kernel key is matched in linear time (path.Match: 65,000 x 32,500
// steps); a glob past MaxGlobLen is refused.
func TestMatchLongChunkLinear(t *testing.T) {
	name := "bin/" + strings.Repeat("k", 65000) + "#3"
	g := "bin/*" + strings.Repeat("k", 32500) + "#*"
	start := time.Now()
	for range 100 {
		if !MatchGlob(g, name) {
			t.Fatal("no match")
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("100 matches took %v", d)
	}
	if err := CheckGlob(g); err == nil || !strings.Contains(err.Error(), "MaxGlobLen") {
		t.Errorf("CheckGlob(32 KB) = %v, want the MaxGlobLen refusal", err)
	}
}

// BenchmarkMatchGlob: the usual waiver globs against usual kernel keys,
// through match and through path.Match.
func BenchmarkMatchGlob(b *testing.B) {
	cases := [][2]string{{"lib/librocfft.so*#*", "lib/librocfft.so.0.1#17"}, {"bin/*", "bin/rocfft-test"}, {"fft_*", "blas_lib"}}
	b.Run("match", func(b *testing.B) {
		for range b.N {
			for _, c := range cases {
				match(c[0], c[1])
			}
		}
	})
	b.Run("path.Match", func(b *testing.B) {
		for range b.N {
			for _, c := range cases {
				_, _ = path.Match(c[0], c[1])
			}
		}
	})
	long := "bin/" + strings.Repeat("k", 65000) + "#3"
	g := "bin/*" + strings.Repeat("k", 1000) + "#*"
	b.Run("long-match", func(b *testing.B) {
		for range b.N {
			match(g, long)
		}
	})
	b.Run("long-path.Match", func(b *testing.B) {
		for range b.N {
			_, _ = path.Match(g, long)
		}
	})
}
