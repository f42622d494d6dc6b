package dedupe

import (
	"bytes"
	"strings"
	"sync"
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
	slot  map[string]int // text → slot
	slots []normalSlot
	next  int // the slot to fill next, the oldest
}

type normalSlot struct {
	text   string
	normal []byte // never changed once in a slot: lookup hands it out
	used   bool
}

// minCachedText is the shortest text the cache keeps: a shorter one is
// normalised about as fast as it is looked up and copied.
const minCachedText = 256

// recentNormals holds the last 4,096 texts, a few runs' worth of each
// case's texts, at most some megabytes.
var recentNormals = newNormalCache(4096)

func newNormalCache(n int) *normalCache {
	return &normalCache{slot: make(map[string]int, n), slots: make([]normalSlot, n)}
}

// lookup returns the normal form of text, if it is in the cache. The
// caller must not change it.
func (c *normalCache) lookup(text string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.slot[text]
	if !ok {
		return nil, false
	}
	return c.slots[i].normal, true
}

// add puts text and its normal form in the oldest slot, copying both: the
// text is most often part of a whole trace file's bytes, which the cache
// must not keep.
func (c *normalCache) add(text string, normal []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.slot[text]; ok {
		return // another goroutine's
	}
	s := &c.slots[c.next]
	if s.used {
		delete(c.slot, s.text)
	}
	s.text, s.normal, s.used = strings.Clone(text), bytes.Clone(normal), true
	c.slot[s.text] = c.next
	c.next = (c.next + 1) % len(c.slots)
}
