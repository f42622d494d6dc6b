package suite

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// cappedOutput keeps the first and last bytes written to it and counts the
// rest, so a suite that prints gigabytes costs a fixed amount of memory.
// The tail matters most: the runners print their counts last.
type cappedOutput struct {
	mu      sync.Mutex
	head    []byte
	headMax int
	ring    []byte // the tail, circular once full
	next    int    // where the next tail byte goes in ring
	full    bool   // ring has wrapped at least once
	total   int64
}

func newCappedOutput(capacity int) *cappedOutput {
	if capacity < 2 {
		capacity = 2
	}
	headMax := capacity / 2
	return &cappedOutput{
		head:    make([]byte, 0, headMax),
		headMax: headMax,
		ring:    make([]byte, capacity-headMax),
	}
}

// Write never fails: the child's output must always be drained, or it
// would block on a full pipe and look like a hang.
func (c *cappedOutput) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	size := len(c.ring)
	if len(p) >= size {
		copy(c.ring, p[len(p)-size:])
		c.next, c.full = 0, true
		return n, nil
	}
	k := copy(c.ring[c.next:], p)
	if k < len(p) {
		copy(c.ring, p[k:])
		c.full = true
	}
	c.next = (c.next + len(p)) % size
	if c.next == 0 && len(p) > 0 {
		c.full = true
	}
	return n, nil
}

// capacity is how many bytes it keeps.
func (c *cappedOutput) capacity() int { return c.headMax + len(c.ring) }

// Total is the number of bytes written, kept or not.
func (c *cappedOutput) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// String is the head, a "[... N bytes cut ...]" marker when anything was
// dropped, and the tail; the cut is moved to rune boundaries so the result
// is valid UTF-8 wherever the process's own output was.
func (c *cappedOutput) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var tail []byte
	if c.full {
		tail = append(append(tail, c.ring[c.next:]...), c.ring[:c.next]...)
	} else {
		tail = append(tail, c.ring[:c.next]...)
	}
	cut := c.total - int64(len(c.head)) - int64(len(tail))
	if cut == 0 {
		return string(c.head) + string(tail)
	}
	head := c.head
	// Drop a rune split by the head's end.
	for i := 1; i <= utf8.UTFMax && i <= len(head); i++ {
		b := head[len(head)-i]
		if b < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(b) {
			if !utf8.FullRune(head[len(head)-i:]) {
				head = head[:len(head)-i]
			}
			break
		}
	}
	// Drop continuation bytes of a rune split by the tail's start.
	for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	cut = c.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n[... %d bytes cut ...]\n%s", head, cut, tail)
}
