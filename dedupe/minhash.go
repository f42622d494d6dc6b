package dedupe

import (
	"math"
	"math/bits"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// The banding of the near-duplicate index: 14 bands of 8 rows, as
// datatrove runs it for FineWeb (reference/dedupe.md). A pair with Jaccard
// similarity s becomes a candidate with probability 1 − (1 − s^8)^14:
// 0.57 at 0.7, 0.92 at 0.8, about 1 at 0.9.
const (
	Bands   = 14
	Rows    = 8
	numPerm = Bands * Rows
	// ShingleSize is the number of tokens in a shingle (BigCode's 5-grams).
	ShingleSize = 5
)

// permSeeds are the seeds of the numPerm hash functions, fixed so that
// signatures are the same on every machine and every run.
var permSeeds = func() (s [numPerm]uint64) {
	x := uint64(0x7079686172_6e6573) // "pyharnes"
	for i := range s {
		x += 0x9e3779b97f4a7c15
		s[i] = mix64(x)
	}
	return s
}()

// mix64 is the splitmix64 finaliser: a fast bijection whose outputs for
// nearby inputs look independent.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// appendShingles appends to dst the sorted, distinct hashes of the token 5-grams
// of text, tokens being runs of [A-Za-z_0-9] with case kept (BigCode's
// tokenisation for code). A text of fewer than five tokens is one shingle of
// all of them, so that "RUN tests" still has a signature.
func appendShingles(dst []uint64, text []byte) []uint64 {
	var s shingler
	return s.appendShingles(dst, text)
}

// shingler is appendShingles with its buffers (the token hashes, and those
// of its distinct sort) kept from one text to the next.
type shingler struct {
	tokens  []uint64
	scratch []uint64
	counts  []int32
}

func (sh *shingler) appendShingles(dst []uint64, text []byte) []uint64 {
	start := len(dst)
	// The token hashes first, then the shingles of every five in a row
	// (hashShingles: eight at a time where the processor can).
	tokens := sh.tokens[:0]
	for i := 0; i < len(text); {
		if !word[text[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && word[text[j]] {
			j++
		}
		tokens = append(tokens, xxhash.Sum64(text[i:j]))
		i = j
	}
	sh.tokens = tokens
	if n := len(tokens); n > 0 && n < ShingleSize {
		dst = append(dst, hashWords(tokens))
	} else {
		dst = hashShingles(dst, tokens)
	}
	return dst[:start+len(sh.sortDistinct(dst[start:]))]
}

// sortDistinct sorts s and drops repeats, in place, and returns what is
// left. Shingles are hashes, spread evenly over 64 bits, so a pass that
// deals them into about len(s) buckets by their top bits leaves a value or
// two per bucket to sort: linear time, where a comparison sort would be
// much of making a text's shingles. When no bucket holds more than a few
// values, one insertion sort over the dealt values finishes the sort (a
// value moves only past the few of its bucket before it) and one pass
// drops the repeats, with no branch on each bucket's size to mispredict. A
// bucket that holds more (repeats of one shingle, or values that are not
// spread) is sorted by slices.Sort, bucket by bucket, so no input costs
// more than a sort.
func (sh *shingler) sortDistinct(s []uint64) []uint64 {
	const small = 48
	const crowded = 16 // values in a bucket sorted by slices.Sort
	if len(s) < small {
		slices.Sort(s)
		return slices.Compact(s)
	}
	k := bits.Len(uint(len(s))) - 1 // 2^k buckets, 1 to 2 values each
	shift := 64 - k
	if cap(sh.counts) < 1<<k {
		sh.counts = make([]int32, 1<<k)
	}
	counts := sh.counts[:1<<k]
	clear(counts)
	for _, v := range s {
		counts[v>>shift]++
	}
	at, most := int32(0), int32(0)
	for b, c := range counts {
		counts[b] = at
		at += c
		most = max(most, c)
	}
	if cap(sh.scratch) < len(s) {
		sh.scratch = make([]uint64, len(s))
	}
	dealt := sh.scratch[:len(s)]
	for _, v := range s {
		b := v >> shift
		dealt[counts[b]] = v
		counts[b]++
	}
	if most <= crowded {
		for i := 1; i < len(dealt); i++ {
			v := dealt[i]
			j := i
			for ; j > 0 && dealt[j-1] > v; j-- {
				dealt[j] = dealt[j-1]
			}
			dealt[j] = v
		}
		n := 1
		s[0] = dealt[0]
		for _, v := range dealt[1:] {
			s[n] = v
			if v != s[n-1] {
				n++
			}
		}
		return s[:n]
	}
	// counts[b] is now where bucket b ends.
	out := s[:0]
	lo := int32(0)
	for _, hi := range counts {
		bucket := dealt[lo:hi]
		lo = hi
		switch {
		case len(bucket) == 0:
			continue
		case len(bucket) > crowded:
			slices.Sort(bucket)
		default:
			for i := 1; i < len(bucket); i++ {
				for j := i; j > 0 && bucket[j] < bucket[j-1]; j-- {
					bucket[j], bucket[j-1] = bucket[j-1], bucket[j]
				}
			}
		}
		for _, v := range bucket {
			if len(out) == 0 || v != out[len(out)-1] {
				out = append(out, v)
			}
		}
	}
	return out
}

// signatureOf is the MinHash signature of a shingle set: for each of numPerm
// hash functions, the least value over the set. An empty set has every
// value at the maximum, so empty texts band together. It is most of the
// cost of keying a turn: signature runs it eight hash functions at a time
// where the processor can (signature_amd64.s), and signatureGeneric
// elsewhere; the two give the same values.
func signatureOf(shingles []uint64) (sig [numPerm]uint64) {
	signature(shingles, &sig)
	return sig
}

// signatureGeneric is Signature in Go, one hash function at a time.
func signatureGeneric(shingles []uint64, sig *[numPerm]uint64) {
	for i := range sig {
		sig[i] = math.MaxUint64
	}
	for _, s := range shingles {
		for i, seed := range permSeeds {
			if h := mix64(s ^ seed); h < sig[i] {
				sig[i] = h
			}
		}
	}
}

// bandHashes folds a signature into one hash per band. The band number is
// hashed in, so equal rows in different bands never meet in the index:
// each band's hash is xxhash64 of the band number and its rows as
// little-endian words (hashWords).
func bandHashes(sig *[numPerm]uint64) (bands [Bands]uint64) {
	var w [Rows + 1]uint64
	for band := range bands {
		w[0] = uint64(band)
		copy(w[1:], sig[band*Rows:(band+1)*Rows])
		bands[band] = hashWords(w[:])
	}
	return bands
}

// jaccard is |a ∩ b| / |a ∪ b| of two sorted, distinct shingle sets; two
// empty sets are alike (1).
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// candidateProbability is the chance that a pair of Jaccard similarity s
// shares at least one band: 1 − (1 − s^Rows)^Bands.
func candidateProbability(s float64) float64 {
	return 1 - math.Pow(1-math.Pow(s, Rows), Bands)
}
