package dedupe

import "math/bits"

// xxhash64's primes (seed 0), for the hashes below that compute
// xxhash.Sum64 of little-endian words straight from the words: a shingle
// hashes its five token hashes, a band its number and eight signature
// rows, without laying the words out as bytes first. TestWordHashesAreXXHash
// holds them to xxhash.Sum64.
const (
	xxPrime1 uint64 = 11400714785074694791
	xxPrime2 uint64 = 14029467366897019727
	xxPrime3 uint64 = 1609587929392839161
	xxPrime4 uint64 = 9650029242287828579
	xxPrime5 uint64 = 2870177450012600261
	// The first and fourth lanes start at prime1 + prime2 and −prime1,
	// wrapped to 64 bits.
	xxLane1 = uint64(11400714785074694791 + 14029467366897019727 - 1<<64)
	xxLane4 = uint64(1<<64 - 11400714785074694791)
)

func xxRound(acc, input uint64) uint64 {
	acc += input * xxPrime2
	acc = bits.RotateLeft64(acc, 31)
	return acc * xxPrime1
}

func xxMergeRound(acc, val uint64) uint64 {
	acc ^= xxRound(0, val)
	return acc*xxPrime1 + xxPrime4
}

// xxTailWord mixes one 8-byte word after the stripes into h.
func xxTailWord(h, w uint64) uint64 {
	h ^= xxRound(0, w)
	return bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
}

func xxAvalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}

// xxStripes runs xxhash64's four lanes over words, four at a time (len(words)
// a multiple of four, at least four), and merges them.
func xxStripes(words []uint64) uint64 {
	v1 := xxLane1
	v2 := xxPrime2
	v3 := uint64(0)
	v4 := xxLane4
	for ; len(words) >= 4; words = words[4:] {
		v1 = xxRound(v1, words[0])
		v2 = xxRound(v2, words[1])
		v3 = xxRound(v3, words[2])
		v4 = xxRound(v4, words[3])
	}
	h := bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
	h = xxMergeRound(h, v1)
	h = xxMergeRound(h, v2)
	h = xxMergeRound(h, v3)
	return xxMergeRound(h, v4)
}

// hashWords is xxhash.Sum64 of words laid out little-endian, 8 bytes each.
func hashWords(words []uint64) uint64 {
	var h uint64
	n := len(words) / 4 * 4
	if n > 0 {
		h = xxStripes(words[:n])
	} else {
		h = xxPrime5
	}
	h += uint64(8 * len(words))
	for _, w := range words[n:] {
		h = xxTailWord(h, w)
	}
	return xxAvalanche(h)
}

// hashShingle is hashWords of the five token hashes a, b, c, d, e: one
// stripe and one word after it, unrolled.
func hashShingle(a, b, c, d, e uint64) uint64 {
	v1 := xxRound(xxLane1, a)
	v2 := xxRound(xxPrime2, b)
	v3 := xxRound(0, c)
	v4 := xxRound(xxLane4, d)
	h := bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
	h = xxMergeRound(h, v1)
	h = xxMergeRound(h, v2)
	h = xxMergeRound(h, v3)
	h = xxMergeRound(h, v4)
	h += 8 * ShingleSize
	return xxAvalanche(xxTailWord(h, e))
}
