package swar

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// firstSpecial is the first special byte of b from i on, a byte at a time.
func firstSpecial(b []byte, i int) int {
	for ; i < len(b); i++ {
		if isJSONSpecial(b[i]) {
			return i
		}
	}
	return len(b)
}

// TestJSONSpecialMarksTheFirstSpecialByte puts every byte value at every
// place of a word of plain bytes, and every pair of values at every two
// places side by side (where a borrow from one byte would reach the
// next): the first mark is the first special byte, and a word with no
// special byte has no mark.
func TestJSONSpecialMarksTheFirstSpecialByte(t *testing.T) {
	plain := [8]byte{'a', ' ', '~', '!', '#', '[', ']', 0x7f}
	check := func(w [8]byte) {
		t.Helper()
		want := firstSpecial(w[:], 0)
		m := jsonSpecial(binary.LittleEndian.Uint64(w[:]))
		switch {
		case want == 8 && m != 0:
			t.Fatalf("% x: no special byte, marks %016x", w, m)
		case want < 8 && (m == 0 || First(m) != want):
			t.Fatalf("% x: first special byte %d, marks %016x", w, want, m)
		case m&^Highs != 0:
			t.Fatalf("% x: marks %016x outside the top bits", w, m)
		}
	}
	for p := range 8 {
		for c := range 256 {
			w := plain
			w[p] = byte(c)
			check(w)
			if p == 7 {
				continue
			}
			for d := range 256 {
				w[p+1] = byte(d)
				check(w)
			}
		}
	}
}

// skipped is what SkipPlainJSON must return: the first special byte from
// i on when it lies in one of the whole words from i, else the end of the
// last whole word (or i itself past the end).
func skipped(b []byte, i int) int {
	if i > len(b) {
		return i
	}
	return min(firstSpecial(b, i), i+(len(b)-i)/8*8)
}

func TestSkipPlainJSON(t *testing.T) {
	for _, c := range []struct {
		s    string
		from int
		want int
	}{
		{"", 0, 0},
		{"plain", 0, 0}, // less than a word: nothing skipped
		{"plain text, longer than a word", 0, 24}, // three words, then six bytes left
		{`eight by"`, 0, 8},
		{`a "quote" and more`, 0, 2},
		{`a "quote" and more`, 3, 8},
		{"sixteen bytes...\n", 0, 16},
		{"tab\there and more", 0, 3},
		{"del \x7f is plain, all", 0, 16},
		{"ascii then é", 0, 8},
		{"ascii then é and more", 4, 11},
		{"short", 7, 7},
	} {
		if got := SkipPlainJSON([]byte(c.s), c.from); got != c.want || got != skipped([]byte(c.s), c.from) {
			t.Errorf("SkipPlainJSON(%q, %d) = %d, want %d", c.s, c.from, got, c.want)
		}
	}
}

// FuzzSkipPlainJSON holds SkipPlainJSON to its definition on any text,
// from any index.
func FuzzSkipPlainJSON(f *testing.F) {
	f.Add([]byte(`{"content":"def f():\n\treturn \"x\" # é"}`), uint8(0))
	f.Add([]byte("twelve bytes\x00 and more plain text"), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, from uint8) {
		i := int(from) % (len(b) + 2)
		if got, want := SkipPlainJSON(b, i), skipped(b, i); got != want {
			t.Fatalf("SkipPlainJSON(%q, %d) = %d, want %d", b, i, got, want)
		}
	})
}

// TestBetween checks every range lo < b < hi the contract allows on every
// 7-bit byte, at every place of a word whose other bytes are random 7-bit
// ones: each byte is marked exactly when it is in the range.
func TestBetween(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for lo := range uint64(128) {
		for hi := range uint64(129) {
			for b := range 128 {
				var w [8]byte
				for k := range w {
					w[k] = byte(rng.IntN(128))
				}
				w[b%8] = byte(b)
				m := Between(binary.LittleEndian.Uint64(w[:]), lo, hi)
				for k, c := range w {
					marked := m>>(8*k)&0xff == 0x80
					if in := lo < uint64(c) && uint64(c) < hi; marked != in || m>>(8*k)&0x7f != 0 {
						t.Fatalf("Between(% x, %d, %d) = %016x: byte %d (%#x) marked %v", w, lo, hi, m, k, c, marked)
					}
				}
			}
		}
	}
}
