package swar

import (
	"math/bits"
	"unsafe"
)

// Ones has 1 in every byte of a word; Highs has every byte's top bit, the
// bit the tests here set to mark a byte.
const (
	Ones  = 0x0101010101010101
	Highs = 0x8080808080808080
)

// First returns the index in its word of the first (lowest) byte marked in
// m, which must not be 0.
func First(m uint64) int {
	return bits.TrailingZeros64(m) / 8
}

// jsonSpecial marks the bytes of x that a JSON string cannot hold as they
// are, or that are part of a character of more than one byte: '"', '\\', a
// control character (below 0x20) and every byte from 0x80 up. A borrow may
// wrongly mark a byte after a marked one, never one before, so the first
// mark is the first special byte and a word with no mark holds none.
func jsonSpecial(x uint64) uint64 {
	// A byte of v is 0 when (v-1) sets its top bit and v does not.
	quote, backslash := x^(Ones*'"'), x^(Ones*'\\')
	return ((quote-Ones)&^quote | (backslash-Ones)&^backslash | (x - Ones*0x20) | x) & Highs
}

// isJSONSpecial is jsonSpecial's definition, one byte at a time.
func isJSONSpecial(c byte) bool {
	return c == '"' || c == '\\' || c < 0x20 || c >= 0x80
}

// Between marks the bytes of low that lie strictly between lo and hi
// (lo < b < hi). low's bytes must have their top bits clear (a word with
// Highs cleared), and lo ≤ 127, hi ≤ 128: then no borrow or carry crosses
// from one byte to the next and every mark is exact. A caller that cleared
// the top bits clears the marks of the bytes that had them.
func Between(low, lo, hi uint64) uint64 {
	return (Ones*(127+hi) - low) & (low + Ones*(127-lo)) & Highs
}

// SkipPlainJSON returns i advanced, eight bytes at a time, past the bytes
// of b that a JSON string holds as they are, to the first byte that is
// not or to where fewer than eight bytes remain: the caller looks at the
// bytes from there one at a time. It is small enough to be inlined in the
// decoder's and the writer's string loops.
func SkipPlainJSON(b []byte, i int) int {
	// As uints, a negative i reads nothing: the caller's b[i] panics.
	for uint(i)+8 <= uint(len(b)) {
		if m := jsonSpecial(load(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	return i
}
