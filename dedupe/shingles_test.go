package dedupe

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHashShinglesIsHashShingle holds hashShingles (eight at a time where
// the processor can) to hashShingle of every five tokens in a row, for
// every count of tokens about its blocks of eight, after what dst holds.
func TestHashShinglesIsHashShingle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 45; n++ {
		tokens := make([]uint64, n)
		for i := range tokens {
			tokens[i] = r.Uint64() >> (r.IntN(4) * 21) // small values too
		}
		want := []uint64{7}
		for i := 0; i+ShingleSize <= n; i++ {
			want = append(want, hashShingle(tokens[i], tokens[i+1], tokens[i+2], tokens[i+3], tokens[i+4]))
		}
		if got := hashShingles([]uint64{7}, tokens); !slices.Equal(got, want) {
			t.Fatalf("%d tokens: hashShingles gives %x, want %x", n, got, want)
		}
	}
}
