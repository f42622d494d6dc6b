package dedupe

import (
	"bytes"
	"sync"
)

// recentTexts remembers what was made of each of the texts seen last, in
// every goroutine of the process: a ring of slots, the oldest refilled
// first, each keeping its buffers from one text to the next. A text is
// found by its hash and taken only for the very same bytes, so what it
// gives is what would be made anew.
type recentTexts[V any] struct {
	mu    sync.Mutex
	slot  map[uint64]int // text hash → slot
	slots []recentSlot[V]
	next  int // the slot to fill next, the oldest
}

type recentSlot[V any] struct {
	hash uint64
	used bool
	text []byte
	made V
}

func newRecentTexts[V any](n int) *recentTexts[V] {
	return &recentTexts[V]{slot: make(map[uint64]int, n), slots: make([]recentSlot[V], n)}
}

// lookup hands read what was made of text, under the lock (read copies
// what it keeps: a later add refills the slot), and reports whether text
// was there.
func (c *recentTexts[V]) lookup(text []byte, hash uint64, read func(*V)) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.slot[hash]
	if !ok || !bytes.Equal(c.slots[i].text, text) {
		return false
	}
	read(&c.slots[i].made)
	return true
}

// add puts a copy of text in the oldest slot and has write fill in what
// was made of it, into the slot's buffers.
func (c *recentTexts[V]) add(text []byte, hash uint64, write func(*V)) {
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
	write(&s.made)
	c.slot[hash] = c.next
	c.next = (c.next + 1) % len(c.slots)
}
