package export

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// groupWeights gives every pair of a group of K distinct clusters the weight
// s·K^(α−1), so that the group weighs s·K^α in all (temperature sampling
// over groups: α = 0 weighs every group the same, α = 1 by its size), with
// no pair above cap (UniMax's cap on repeats), and s chosen so that the
// weights have mean 1 over the export. sizes maps each group to its K; the
// result maps each group to the weight of one of its pairs.
func groupWeights(sizes map[string]int, alpha, cap float64) map[string]float64 {
	type group struct {
		name string
		k    float64
		raw  float64
	}
	var gs []group
	total := 0.0
	for name, k := range sizes {
		if k > 0 {
			gs = append(gs, group{name, float64(k), math.Pow(float64(k), alpha-1)})
			total += float64(k)
		}
	}
	// Heaviest pairs first: they are the ones the cap reaches.
	slices.SortFunc(gs, func(a, b group) int {
		if c := cmp.Compare(b.raw, a.raw); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	// With the first j groups capped, the rest scale by
	// s = (total − cap·Σ_{<j} K) / Σ_{≥j} K·raw; take the first j for which
	// the j-th group stays under the cap.
	var cappedK, restKR float64
	for _, g := range gs {
		restKR += g.k * g.raw
	}
	s := 0.0
	j := 0
	for ; j < len(gs); j++ {
		s = (total - cap*cappedK) / restKR
		if s*gs[j].raw <= cap {
			break
		}
		cappedK += gs[j].k
		restKR -= gs[j].k * gs[j].raw
	}
	out := make(map[string]float64, len(gs))
	for i, g := range gs {
		if i < j {
			out[g.name] = cap
		} else {
			out[g.name] = s * g.raw
		}
	}
	return out
}

// copiesOf is how many times a pair of weight w is written to a training
// file: ⌊w⌋, and one more with probability frac(w), drawn from the seed and
// the pair's key so that the same export always writes the same rows.
func copiesOf(w float64, seed uint64, key string) int {
	n := int(math.Floor(w))
	frac := w - float64(n)
	if frac > 0 && uniform(seed, key) < frac {
		n++
	}
	return n
}

// uniform is a number in [0, 1) fixed by the seed and a key.
func uniform(seed uint64, key string) float64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	d := xxhash.New()
	d.Write(b[:])
	d.WriteString(key)
	return float64(d.Sum64()>>11) / (1 << 53)
}

// Split names, as Hugging Face reads them from file names.
const (
	SplitTrain      = "train"
	splitValidation = "validation"
	splitTest       = "test"
)

// assignSplits puts whole groups into splits, never single pairs, so that
// no case is in two splits: groups are ordered by a hash of the seed and
// their name, the first ⌈test·G⌉ go to test, the next ⌈valid·G⌉ to
// validation, the rest to train. With two groups or more, validation gets
// at least one (and test at least one, if asked, with three or more); train
// always keeps at least one.
func assignSplits(groups []string, valid, test float64, seed uint64) map[string]string {
	gs := slices.Clone(groups)
	slices.Sort(gs)
	gs = slices.Compact(gs)
	slices.SortStableFunc(gs, func(a, b string) int {
		return cmp.Compare(uniform(seed, "split\x00"+a), uniform(seed, "split\x00"+b))
	})
	n := len(gs)
	nTest, nValid := 0, 0
	if test > 0 && n >= 3 {
		nTest = max(1, int(math.Round(test*float64(n))))
	}
	if valid > 0 && n >= 2 {
		nValid = max(1, int(math.Round(valid*float64(n))))
	}
	for nTest+nValid > n-1 && nTest+nValid > 0 {
		if nTest > 1 || nTest > 0 && nValid <= 1 {
			nTest--
		} else {
			nValid--
		}
	}
	out := make(map[string]string, n)
	for i, g := range gs {
		switch {
		case i < nTest:
			out[g] = splitTest
		case i < nTest+nValid:
			out[g] = splitValidation
		default:
			out[g] = SplitTrain
		}
	}
	return out
}
