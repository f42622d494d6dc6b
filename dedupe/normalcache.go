package dedupe

import (
	"sync"

	"github.com/cespare/xxhash/v2"
)

// normalCache remembers the normal forms of the texts normalised last, in
// every goroutine of the process. A Fingerprinter normalises each text
// once a run, but many texts are in many runs: the system prompt is in
// every run of a harness version, and a case's task and files are in every
// pass of it, read one after another. About half the bytes a classify
// normalised had been normalised in an earlier run (a generated corpus of
// 5,000 turns). An entry is taken only for the very same text, so the
// normal form is the one made anew.
type normalCache struct {
	mu    sync.Mutex
	slot  map[uint64]int // text hash → slot
	slots []normalSlot
	next  int // the slot to fill next, the oldest
}

// normalSlot keeps its buffers from one text to the next: lookup copies
// the normal form out rather than hand out a slice a later add overwrites.
type normalSlot struct {
	hash   uint64
	used   bool
	text   []byte
	normal []byte
}

// The cache keeps texts of minCachedText to maxCachedText bytes: a
// shorter one is normalised about as fast as it is looked up and copied,
// and the longest bound what the slots' buffers hold.
const (
	minCachedText = 256
	maxCachedText = 16 << 10
)

// recentNormals holds the last 1,024 texts, dozens of runs' worth, in
// at most about 32 MiB.
var recentNormals = newNormalCache(1024)

func newNormalCache(n int) *normalCache {
	return &normalCache{slot: make(map[uint64]int, n), slots: make([]normalSlot, n)}
}

// lookup appends the normal form of text to dst and returns it, if text
// is in the cache.
func (c *normalCache) lookup(text string, hash uint64, dst []byte) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.slot[hash]
	if !ok || string(c.slots[i].text) != text {
		return dst, false
	}
	return append(dst, c.slots[i].normal...), true
}

// add puts text and its normal form in the oldest slot, copying both.
func (c *normalCache) add(text string, hash uint64, normal []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.slot[hash]; ok {
		return // another goroutine's, or a text of the same hash: keep it
	}
	s := &c.slots[c.next]
	if s.used {
		delete(c.slot, s.hash)
	}
	s.hash, s.used = hash, true
	s.text = append(s.text[:0], text...)
	s.normal = append(s.normal[:0], normal...)
	c.slot[hash] = c.next
	c.next = (c.next + 1) % len(c.slots)
}

// textHash is what the cache finds a text by.
func textHash(s string) uint64 { return xxhash.Sum64String(s) }
