package swar

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// firstSpecial is NextJSONSpecial by its definition, a byte at a time.
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

func TestNextJSONSpecial(t *testing.T) {
	for _, c := range []struct {
		s    string
		from int
		want int
	}{
		{"", 0, 0},
		{"plain", 0, 5},
		{"plain text, longer than a word", 0, 30},
		{`eight by"`, 0, 8},
		{`a "quote"`, 3, 8},
		{`a\b`, 0, 1},
		{"sixteen bytes...\n", 0, 16},
		{"tab\there", 0, 3},
		{"del \x7f is plain", 0, 14},
		{"ascii then é", 0, 11},
		{"ascii then é", 12, 12},
		{"short", 5, 5},
		{"short", 7, 5},
	} {
		if got := NextJSONSpecial(c.s, c.from); got != c.want {
			t.Errorf("NextJSONSpecial(%q, %d) = %d, want %d", c.s, c.from, got, c.want)
		}
		if got := NextJSONSpecial([]byte(c.s), c.from); got != c.want {
			t.Errorf("NextJSONSpecial([]byte(%q), %d) = %d, want %d", c.s, c.from, got, c.want)
		}
	}
}

// FuzzNextJSONSpecial holds NextJSONSpecial to its definition on any text,
// from any index.
func FuzzNextJSONSpecial(f *testing.F) {
	f.Add([]byte(`{"content":"def f():\n\treturn \"x\" # é"}`), uint8(0))
	f.Add([]byte("twelve bytes\x00 and more plain text"), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, from uint8) {
		i := int(from) % (len(b) + 2)
		want := firstSpecial(b, i)
		if got := NextJSONSpecial(b, i); got != want {
			t.Fatalf("NextJSONSpecial(%q, %d) = %d, want %d", b, i, got, want)
		}
		if got := NextJSONSpecial(string(b), i); got != want {
			t.Fatalf("NextJSONSpecial(string %q, %d) = %d, want %d", b, i, got, want)
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

func TestWord(t *testing.T) {
	s := "0123456789abcdef"
	for i := 0; i+8 <= len(s); i++ {
		want := binary.LittleEndian.Uint64([]byte(s[i:]))
		if got := Word(s, i); got != want {
			t.Errorf("Word(%q, %d) = %#x, want %#x", s, i, got, want)
		}
		if got := Word([]byte(s), i); got != want {
			t.Errorf("Word([]byte(%q), %d) = %#x, want %#x", s, i, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Word of fewer than eight bytes did not panic")
		}
	}()
	_ = Word("seven b", 0)
}
