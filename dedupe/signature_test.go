package dedupe

import (
	"math/rand/v2"
	"testing"
)

// TestSignatureMatchesGeneric holds Signature (eight hash functions at a
// time where the processor has AVX-512) to the Go statement of it on sets
// of every size from empty to a long text's, with extreme values among
// them.
func TestSignatureMatchesGeneric(t *testing.T) {
	t.Logf("Signature runs %s", signatureKernel())
	r := rand.New(rand.NewPCG(7, 11))
	for n := range 300 {
		set := make([]uint64, n)
		for i := range set {
			switch r.IntN(10) {
			case 0:
				set[i] = 0
			case 1:
				set[i] = ^uint64(0)
			default:
				set[i] = r.Uint64()
			}
		}
		var want [numPerm]uint64
		signatureGeneric(set, &want)
		if got := signatureOf(set); got != want {
			t.Fatalf("%d shingles: signatures differ", n)
		}
	}
}

func BenchmarkSignature(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	set := make([]uint64, 150) // a turn's near text has about 150 shingles
	for i := range set {
		set[i] = r.Uint64()
	}
	b.Run("now", func(b *testing.B) {
		for b.Loop() {
			_ = signatureOf(set)
		}
	})
	b.Run("generic", func(b *testing.B) {
		var sig [numPerm]uint64
		for b.Loop() {
			signatureGeneric(set, &sig)
		}
	})
}
