package swar

import "math/bits"

// Ones has 1 in every byte of a word; Highs has every byte's top bit, the
// bit the tests here set to mark a byte.
const (
	Ones  = 0x0101010101010101
	Highs = 0x8080808080808080
)

// Word returns the eight bytes of b from i on as a word, b[i] in its lowest
// byte, whatever the machine's byte order.
func Word[T ~string | ~[]byte](b T, i int) uint64 {
	_ = b[i+7] // one bounds check for the eight
	return uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
		uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
}

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

// NextJSONSpecial returns the index of the first byte of b from i on that
// is '"', '\\', a control character or a byte of a non-ASCII character, or
// len(b) when there is none: the bytes before it are ASCII that a JSON
// string holds as they are. It tests eight bytes at a time while eight
// remain.
func NextJSONSpecial[T ~string | ~[]byte](b T, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := jsonSpecial(Word(b, i)); m != 0 {
			return i + First(m)
		}
	}
	for ; i < len(b); i++ {
		if isJSONSpecial(b[i]) {
			return i
		}
	}
	return len(b)
}

// Between marks the bytes of low that lie strictly between lo and hi
// (lo < b < hi). low's bytes must have their top bits clear (a word with
// Highs cleared), and lo ≤ 127, hi ≤ 128: then no borrow or carry crosses
// from one byte to the next and every mark is exact. A caller that cleared
// the top bits clears the marks of the bytes that had them.
func Between(low, lo, hi uint64) uint64 {
	return (Ones*(127+hi) - low) & (low + Ones*(127-lo)) & Highs
}
