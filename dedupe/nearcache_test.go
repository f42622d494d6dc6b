package dedupe

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// nearOf is what nearPrint makes of a near text without the cache.
func nearOf(text []byte) ([]uint64, [Bands]uint32) {
	sh := appendShingles(nil, text)
	sig := signatureOf(sh)
	var bands [Bands]uint32
	for b, h := range bandHashes(&sig) {
		bands[b] = fold32(h)
	}
	return sh, bands
}

// TestNearCacheGivesWhatIsMadeAnew draws texts from a pool larger than
// the cache, so that entries are evicted and slots reused, and holds every
// hit to the shingles and band hashes made without the cache; and it finds
// a text only by its own bytes, never by another's hash.
func TestNearCacheGivesWhatIsMadeAnew(t *testing.T) {
	c := newNearCache(8)
	r := rand.New(rand.NewPCG(5, 6))
	pool := make([][]byte, 20)
	for i := range pool {
		pool[i] = fmt.Appendf(nil, "WRITE f%d.py\n%s\nRan %d tests in 0.00%ds", i, slices.Repeat([]byte("x = y + z\n"), i*7), i, i)
	}
	hits := 0
	for range 2000 {
		text := pool[r.IntN(len(pool))]
		want, wantBands := nearOf(text)
		got, bands, ok := c.lookup(text, nearHash(text), []uint64{42})
		if !ok {
			if !slices.Equal(got, []uint64{42}) {
				t.Fatal("a miss changed the shingles it was given")
			}
			c.add(text, nearHash(text), want, wantBands)
			continue
		}
		hits++
		if !slices.Equal(got[1:], want) || got[0] != 42 || bands != wantBands {
			t.Fatalf("the cached fingerprint of %.20q differs from the one made anew", text)
		}
	}
	if hits < 100 || hits > 1900 {
		t.Fatalf("%d hits in 2000 lookups of 20 texts through 8 slots", hits)
	}
	a, b := []byte("READ a.py"), []byte("READ b.py")
	sh, bands := nearOf(a)
	c.add(a, 7, sh, bands)
	if _, _, ok := c.lookup(b, 7, nil); ok {
		t.Fatal("a text was found by another text's hash")
	}
	if got, _, ok := c.lookup(a, 7, nil); !ok || !slices.Equal(got, sh) {
		t.Fatal("a text was not found by its own hash")
	}
}
