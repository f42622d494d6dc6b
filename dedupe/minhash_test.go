package dedupe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestShingles(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"!!! ---", 0},
		{"RUN tests", 1},
		{"a b c d", 1},
		{"a b c d e", 1},
		{"a b c d e f", 2},
		{"a b c d e a b c d e", 5}, // 6 windows, one repeated
		{"Case Kept case kept x", 1},
	}
	for _, tt := range tests {
		if got := len(appendShingles(nil, []byte(tt.text))); got != tt.want {
			t.Errorf("appendShingles(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
	if jaccard(appendShingles(nil, []byte("Foo bar baz qux quux")), appendShingles(nil, []byte("foo bar baz qux quux"))) != 0 {
		t.Error("case is not kept")
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b []uint64
		want float64
	}{
		{nil, nil, 1},
		{[]uint64{1}, nil, 0},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, 1},
		{[]uint64{1, 2, 3, 4}, []uint64{3, 4, 5, 6}, 2.0 / 6},
		{[]uint64{1, 2}, []uint64{3, 4}, 0},
	}
	for _, tt := range tests {
		if got := jaccard(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// The signature estimates the Jaccard similarity: the share of equal
// minima is close to the exact value.
func TestSignatureEstimatesJaccard(t *testing.T) {
	var words []string
	for i := range 400 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	a := appendShingles(nil, []byte(strings.Join(words, " ")))
	for _, cut := range []int{0, 40, 100, 200} {
		b := appendShingles(nil, []byte(strings.Join(words[cut:], " ")+" "+strings.Join(words[:cut], "_")))
		exact := jaccard(a, b)
		sa, sb := signatureOf(a), signatureOf(b)
		eq := 0
		for i := range sa {
			if sa[i] == sb[i] {
				eq++
			}
		}
		est := float64(eq) / numPerm
		if math.Abs(est-exact) > 0.12 {
			t.Errorf("cut %d: estimate %.2f, exact %.2f", cut, est, exact)
		}
	}
}

func TestCandidateProbability(t *testing.T) {
	// reference/dedupe.md: 14×8 gives P(0.7) ≈ 0.57, P(0.8) ≈ 0.92, P(0.9) ≈ 1.0.
	for _, tt := range []struct{ s, want float64 }{{0.7, 0.57}, {0.8, 0.92}, {0.9, 1.0}} {
		if got := candidateProbability(tt.s); math.Abs(got-tt.want) > 0.01 {
			t.Errorf("P(%.1f) = %.3f, want ≈ %.2f", tt.s, got, tt.want)
		}
	}
}

// TestSortDistinctIsSortAndCompact holds the bucket sort of shingles to
// slices.Sort and slices.Compact: on spread hashes with repeats, on values
// crowded into a few buckets (small numbers, one top byte), and on every
// length around the cut-over to buckets.
func TestSortDistinctIsSortAndCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var sh shingler
	shapes := map[string]func() uint64{
		"spread":   r.Uint64,
		"repeats":  func() uint64 { return r.Uint64() >> 58 << 58 },
		"small":    func() uint64 { return r.Uint64N(1000) },
		"one-top":  func() uint64 { return 0xab<<56 | r.Uint64N(1<<56) },
		"few-vals": func() uint64 { return []uint64{1, 1 << 63, ^uint64(0), 42}[r.IntN(4)] },
	}
	for name, gen := range shapes {
		for _, n := range []int{0, 1, 2, 47, 48, 49, 63, 64, 65, 100, 1000, 5000} {
			in := make([]uint64, n)
			for i := range in {
				in[i] = gen()
				if i > 0 && r.IntN(5) == 0 {
					in[i] = in[r.IntN(i)] // a repeated shingle
				}
			}
			want := slices.Compact(slices.Sorted(slices.Values(in)))
			got := sh.sortDistinct(slices.Clone(in))
			if !slices.Equal(got, want) {
				t.Errorf("%s, %d values: sortDistinct gives %d values, want %d (sorted distinct)", name, n, len(got), len(want))
			}
		}
	}
}
