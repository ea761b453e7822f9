package kpacktest

import "math/rand"

// CodeLike makes bytes that compress roughly like code objects (about 4:1
// with zstd): words from a fixed random vocabulary mixed with random bytes.
// The stream is deterministic for a seed; benchmarks use it for corpora.
type CodeLike struct {
	rng   *rand.Rand
	words [][]byte
}

// NewCodeLike returns a generator seeded with seed.
func NewCodeLike(seed int64) *CodeLike {
	rng := rand.New(rand.NewSource(seed))
	words := make([][]byte, 256)
	for i := range words {
		words[i] = make([]byte, 4+rng.Intn(12))
		rng.Read(words[i])
	}
	return &CodeLike{rng: rng, words: words}
}

// Bytes returns n bytes: prefix (e.g. an ELF header) followed by code-like
// filler, cut to n.
func (c *CodeLike) Bytes(prefix []byte, n int) []byte {
	out := make([]byte, 0, n+16)
	out = append(out, prefix...)
	for len(out) < n {
		if c.rng.Intn(8) == 0 {
			out = append(out, byte(c.rng.Intn(256)))
			continue
		}
		out = append(out, c.words[c.rng.Intn(len(c.words))]...)
	}
	return out[:n]
}
