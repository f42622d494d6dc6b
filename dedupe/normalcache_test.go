package dedupe

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNormalCacheGivesWhatIsMadeAnew fingerprints texts drawn from a pool
// larger than the cache through Fingerprinters that each see one run's
// worth, so that normal forms come from the cache, entries are evicted and
// slots reused, and holds every normal form to the one made without it.
func TestNormalCacheGivesWhatIsMadeAnew(t *testing.T) {
	saved := recentNormals
	defer func() { recentNormals = saved }()
	recentNormals = newNormalCache(8)

	r := rand.New(rand.NewPCG(7, 8))
	pool := make([]string, 20)
	for i := range pool {
		// Long enough for the cache, with what normalising replaces.
		pool[i] = fmt.Sprintf("run bench-case%d-p1-0123456789ab at 2024-05-01T10:%02d:00Z\r\n", i, i) +
			strings.Repeat(fmt.Sprintf("x = f(%d)   \n\n\n", i), 30)
	}
	hits := 0
	for range 200 {
		var f Fingerprinter
		for range 5 {
			// Each text its own copy, so that the Fingerprinter's own
			// lookup by address does not find it.
			s := strings.Clone(pool[r.IntN(len(pool))])
			if _, ok := recentNormals.lookup(s, textHash(s), nil); ok {
				hits++
			}
			if got, want := f.normalOf(s), appendNormalizedString(nil, s); !bytes.Equal(got, want) {
				t.Fatalf("the normal form of %.30q is %.30q, want %.30q", s, got, want)
			}
		}
	}
	if hits < 50 || hits > 950 {
		t.Fatalf("%d cache hits in 1000 texts of 20 through 8 slots", hits)
	}
	if _, ok := recentNormals.lookup(pool[0]+" ", textHash(pool[0]+" "), nil); ok {
		t.Fatal("a text was found that was never added")
	}
	recentNormals.add("a.py", 7, []byte("A"))
	if _, ok := recentNormals.lookup("b.py", 7, nil); ok {
		t.Fatal("a text was found by another text's hash")
	}
}
