package dedupe

import "github.com/cespare/xxhash/v2"

// nearCache remembers the shingles and band hashes of the near texts
// fingerprinted last, in every goroutine of the process. A pass that
// repeats an earlier one of its case repeats its turns' near texts, and a
// case's runs are read one after another, so the copy is nearly always
// among the last few hundred: the shingles and the signature, the costly
// part of fingerprinting a turn, are then a copy. An entry is taken only
// for the very same bytes, so the fingerprints are the ones made anew.
type nearCache struct{ texts *recentTexts[nearMade] }

type nearMade struct {
	shingles []uint64
	bands    [Bands]uint32
}

// recentNears holds the last 1,024 near texts: about 640 turns are read
// ahead of the one classify writes, and what a slot holds (a draft and
// the message it answered, their shingles) is a few kilobytes.
var recentNears = newNearCache(1024)

func newNearCache(n int) nearCache { return nearCache{newRecentTexts[nearMade](n)} }

// lookup appends the shingles of text to shingles and returns them with
// its band hashes, if text is in the cache.
func (c nearCache) lookup(text []byte, hash uint64, shingles []uint64) ([]uint64, [Bands]uint32, bool) {
	var bands [Bands]uint32
	ok := c.texts.lookup(text, hash, func(m *nearMade) {
		shingles, bands = append(shingles, m.shingles...), m.bands
	})
	return shingles, bands, ok
}

// add puts text with its shingles and band hashes in the oldest slot,
// copying them.
func (c nearCache) add(text []byte, hash uint64, shingles []uint64, bands [Bands]uint32) {
	c.texts.add(text, hash, func(m *nearMade) {
		m.shingles, m.bands = append(m.shingles[:0], shingles...), bands
	})
}

// nearHash is what the cache finds a text by.
func nearHash(text []byte) uint64 { return xxhash.Sum64(text) }
