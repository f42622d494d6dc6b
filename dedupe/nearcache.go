package dedupe

import (
	"bytes"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// nearCache remembers the shingles and band hashes of the near texts
// fingerprinted last, in every goroutine of the process. A pass that
// repeats an earlier one of its case repeats its turns' near texts, and a
// case's runs are read one after another, so the copy is nearly always
// among the last few hundred: the shingles and the signature, half of
// fingerprinting a turn, are then a copy. An entry is taken only for the
// very same bytes, so the fingerprints are the ones made anew.
type nearCache struct {
	mu    sync.Mutex
	slot  map[uint64]int // text hash → slot
	slots []nearSlot
	next  int // the slot to fill next, the oldest
}

type nearSlot struct {
	hash     uint64
	used     bool
	text     []byte
	shingles []uint64
	bands    [Bands]uint32
}

// recentNears holds the last 1,024 near texts: about 640 turns are read
// ahead of the one classify writes, and what a slot holds (a draft and
// the message it answered, their shingles) is a few kilobytes.
var recentNears = newNearCache(1024)

func newNearCache(n int) *nearCache {
	return &nearCache{slot: make(map[uint64]int, n), slots: make([]nearSlot, n)}
}

// lookup appends the shingles of text to shingles and returns them with
// its band hashes, if text is in the cache.
func (c *nearCache) lookup(text []byte, hash uint64, shingles []uint64) ([]uint64, [Bands]uint32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.slot[hash]
	if !ok || !bytes.Equal(c.slots[i].text, text) {
		return shingles, [Bands]uint32{}, false
	}
	s := &c.slots[i]
	return append(shingles, s.shingles...), s.bands, true
}

// add puts text with its shingles and band hashes in the oldest slot,
// copying them.
func (c *nearCache) add(text []byte, hash uint64, shingles []uint64, bands [Bands]uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.slot[hash]; ok {
		return // another goroutine's, or a text of the same hash: keep it
	}
	s := &c.slots[c.next]
	if s.used {
		delete(c.slot, s.hash)
	}
	s.hash, s.used, s.bands = hash, true, bands
	s.text = append(s.text[:0], text...)
	s.shingles = append(s.shingles[:0], shingles...)
	c.slot[hash] = c.next
	c.next = (c.next + 1) % len(c.slots)
}

// nearHash is what the cache finds a text by.
func nearHash(text []byte) uint64 { return xxhash.Sum64(text) }
