package dedupe

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestWordHashesAreXXHash holds the word hashes to xxhash.Sum64 of the
// same words as bytes: a difference would change every shingle and band
// hash, so fingerprints stored by one build would not match another's.
func TestWordHashesAreXXHash(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 13; n++ {
		for range 200 {
			words := make([]uint64, n)
			var b []byte
			for i := range words {
				words[i] = r.Uint64()
				if i%3 == 0 {
					words[i] >>= r.IntN(64) // small values too
				}
				b = binary.LittleEndian.AppendUint64(b, words[i])
			}
			if got, want := hashWords(words), xxhash.Sum64(b); got != want {
				t.Fatalf("hashWords(%x) = %x, xxhash.Sum64 = %x", words, got, want)
			}
			if n == ShingleSize {
				if got, want := hashShingle(words[0], words[1], words[2], words[3], words[4]), xxhash.Sum64(b); got != want {
					t.Fatalf("hashShingle(%x) = %x, xxhash.Sum64 = %x", words, got, want)
				}
			}
		}
	}
}
