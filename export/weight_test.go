package export

import (
	"fmt"
	"math"
	"testing"
)

func TestWeights(t *testing.T) {
	tests := []struct {
		name  string
		sizes map[string]int
		alpha float64
		cap   float64
	}{
		{"equal groups", map[string]int{"a": 5, "b": 5, "c": 5}, 0.3, 3},
		{"one big group", map[string]int{"a": 40, "b": 2, "c": 3}, 0.3, 3},
		{"cap binds", map[string]int{"a": 100, "b": 1}, 0.3, 3},
		{"alpha 0: every group the same", map[string]int{"a": 10, "b": 2}, 0, 100},
		{"alpha 1: by size", map[string]int{"a": 10, "b": 2}, 1, 3},
		{"cap 1: all ones", map[string]int{"a": 10, "b": 2, "c": 1}, 0.3, 1},
		{"one group", map[string]int{"a": 7}, 0.3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := groupWeights(tt.sizes, tt.alpha, tt.cap)
			total, n := 0.0, 0
			for g, k := range tt.sizes {
				if w[g] > tt.cap+1e-9 || w[g] <= 0 {
					t.Errorf("group %s weight %g outside (0, %g]", g, w[g], tt.cap)
				}
				total += w[g] * float64(k)
				n += k
			}
			if mean := total / float64(n); math.Abs(mean-1) > 1e-9 {
				t.Errorf("mean weight %g, want 1 (%v)", mean, w)
			}
			// Smaller groups weigh more per pair (α < 1), never less.
			for g, k := range tt.sizes {
				for h, l := range tt.sizes {
					if k < l && w[g] < w[h]-1e-9 && tt.alpha < 1 {
						t.Errorf("group %s (%d) weighs %g per pair, less than %s (%d) at %g", g, k, w[g], h, l, w[h])
					}
				}
			}
		})
	}
	// The group totals follow K^α where no cap binds.
	w := groupWeights(map[string]int{"a": 8, "b": 1}, 0.3, 100)
	if got, want := 8*w["a"]/(1*w["b"]), math.Pow(8, 0.3); math.Abs(got-want) > 1e-9 {
		t.Errorf("group totals ratio %g, want 8^0.3 = %g", got, want)
	}
}

func TestCopies(t *testing.T) {
	// ⌊w⌋ always; one more with probability frac(w), the same every time.
	sum := 0
	const n = 4000
	for i := range n {
		key := fmt.Sprint(i)
		c := copiesOf(1.25, 9, key)
		if c != 1 && c != 2 {
			t.Fatalf("copies of 1.25: %d", c)
		}
		if copiesOf(1.25, 9, key) != c {
			t.Fatal("copies differ for the same seed and key")
		}
		sum += c
	}
	if mean := float64(sum) / n; math.Abs(mean-1.25) > 0.03 {
		t.Errorf("mean copies %.3f, want 1.25", mean)
	}
	if copiesOf(3, 1, "x") != 3 || copiesOf(0.0, 1, "x") != 0 {
		t.Error("whole weights are their own copies")
	}
}

func TestAssignSplits(t *testing.T) {
	groups := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("case-%02d", i))
		}
		return out
	}
	tests := []struct {
		name                    string
		n                       int
		valid, test             float64
		wantTrain, wantV, wantT int
	}{
		{"one group: all train", 1, 0.1, 0, 1, 0, 0},
		{"two groups: one held out", 2, 0.1, 0, 1, 1, 0},
		{"fifteen cases", 15, 0.1, 0, 13, 2, 0},
		{"with a test split", 15, 0.1, 0.1, 11, 2, 2},
		{"test needs three groups", 2, 0.1, 0.1, 1, 1, 0},
		{"three groups, both held out", 3, 0.1, 0.1, 1, 1, 1},
		{"no validation asked", 5, 0, 0, 5, 0, 0},
		{"train always keeps one", 4, 0.6, 0.3, 1, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := assignSplits(groups(tt.n), tt.valid, tt.test, 3)
			count := map[string]int{}
			for _, sp := range got {
				count[sp]++
			}
			if count[SplitTrain] != tt.wantTrain || count[splitValidation] != tt.wantV || count[splitTest] != tt.wantT {
				t.Errorf("splits %v", count)
			}
			again := assignSplits(groups(tt.n), tt.valid, tt.test, 3)
			for g := range got {
				if got[g] != again[g] {
					t.Fatal("not deterministic")
				}
			}
		})
	}
	a := assignSplits(groups(15), 0.2, 0, 1)
	b := assignSplits(groups(15), 0.2, 0, 2)
	same := true
	for g := range a {
		same = same && a[g] == b[g]
	}
	if same {
		t.Error("the seed does not change the split")
	}
}
