package dedupe

import (
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// normalCache remembers the normal forms of the texts normalised last, in
// every goroutine of the process. A Fingerprinter normalises each text
// once a run, but many texts are in many runs: the system prompt is in
// every run of a harness version, and a case's task and files are in every
// pass of it, read one after another. An entry is taken only for the
// very same text, so the normal form is the one made anew.
type normalCache struct{ texts *recentTexts[[]byte] }

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

func newNormalCache(n int) normalCache { return normalCache{newRecentTexts[[]byte](n)} }

// lookup appends the normal form of text to dst and returns it, if text
// is in the cache.
func (c normalCache) lookup(text string, hash uint64, dst []byte) ([]byte, bool) {
	ok := c.texts.lookup(bytesOf(text), hash, func(normal *[]byte) { dst = append(dst, *normal...) })
	return dst, ok
}

// add puts text and its normal form in the oldest slot, copying both.
func (c normalCache) add(text string, hash uint64, normal []byte) {
	c.texts.add(bytesOf(text), hash, func(n *[]byte) { *n = append((*n)[:0], normal...) })
}

// textHash is what the cache finds a text by.
func textHash(s string) uint64 { return xxhash.Sum64String(s) }

// bytesOf is s's bytes, not to be changed.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
