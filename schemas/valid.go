package schemas

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// validLine reports whether line is one JSON value in valid UTF-8 that
// encoding/json would accept, nested at most maxDepth deep. It is the check
// DecodeRecord makes before the fast decoder, which takes some invalid
// JSON (it skips unknown fields unchecked, and takes control characters in
// strings): a line it fails goes to the strict decoder, which names what
// is wrong, so a false answer only costs time and a true one must be right
// (FuzzValidLine holds it to encoding/json.Valid and utf8.Valid).
//
// It replaced gjson.ValidBytes, two utf8.Valid passes and a count of
// brackets: in callgrind's instruction counts of DecodeRecord that check
// was 28% (gjson's byte-by-byte string scan 23%). Strings are most of a
// trace's bytes, so they are scanned eight bytes at a time.
func validLine(line []byte) bool {
	v := validator{b: line}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(v.b)
}

// maxDepth bounds the nesting validLine follows; deeper lines go to the
// strict decoder, which has its own bound (10,000).
const maxDepth = 1000

type validator struct {
	b []byte
	i int
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '"':
		return v.string()
	case c == '{':
		return depth < maxDepth && v.object(depth+1)
	case c == '[':
		return depth < maxDepth && v.array(depth+1)
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return v.number()
	}
	return false
}

func (v *validator) literal(s string) bool {
	if len(v.b)-v.i < len(s) || string(v.b[v.i:v.i+len(s)]) != s {
		return false
	}
	v.i += len(s)
	return true
}

func (v *validator) object(depth int) bool {
	return v.members('}', func() bool {
		if v.i >= len(v.b) || v.b[v.i] != '"' || !v.string() {
			return false
		}
		v.space()
		if v.i >= len(v.b) || v.b[v.i] != ':' {
			return false
		}
		v.i++
		v.space()
		return v.value(depth)
	})
}

func (v *validator) array(depth int) bool {
	return v.members(']', func() bool { return v.value(depth) })
}

// members checks the members of an object or array, each by member, comma
// separated, up to the closing byte; v.i is at the opening one.
func (v *validator) members(closing byte, member func() bool) bool {
	v.i++
	v.space()
	if v.i < len(v.b) && v.b[v.i] == closing {
		v.i++
		return true
	}
	for {
		if !member() {
			return false
		}
		v.space()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
			v.space()
		case closing:
			v.i++
			return true
		default:
			return false
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special reports, in the high bit of each byte of w, the bytes a string
// scan must stop at: '"', '\\', a control character (< 0x20) or a byte of
// a multi-byte UTF-8 sequence (≥ 0x80). The bit of a byte above the
// first flagged one may be set wrongly (the borrow of the subtractions),
// so only the lowest flagged byte is to be trusted.
func special(w uint64) uint64 {
	quote := w ^ (ones * '"')
	slash := w ^ (ones * '\\')
	return ((quote - ones) &^ quote) | ((slash - ones) &^ slash) | ((w - ones*0x20) &^ w) | w&highs
}

func (v *validator) string() bool {
	b, i := v.b, v.i+1 // after the opening quote
	for {
		for i+8 <= len(b) {
			s := special(binary.LittleEndian.Uint64(b[i:])) & highs
			if s != 0 {
				i += bits.TrailingZeros64(s) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '"':
			v.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false
				}
				i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				return false
			}
			i += n
		default:
			i++ // a plain byte the eight-byte scan left for the tail
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (v *validator) number() bool {
	b := v.b
	if b[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i < len(b) && b[v.i] == '0':
		v.i++
	case v.i < len(b) && b[v.i] >= '1' && b[v.i] <= '9':
		v.digits()
	default:
		return false
	}
	if v.i < len(b) && b[v.i] == '.' {
		v.i++
		if !v.digits() {
			return false
		}
	}
	if v.i < len(b) && (b[v.i] == 'e' || b[v.i] == 'E') {
		v.i++
		if v.i < len(b) && (b[v.i] == '+' || b[v.i] == '-') {
			v.i++
		}
		if !v.digits() {
			return false
		}
	}
	return true
}

// digits skips one or more digits, reporting whether there was one.
func (v *validator) digits() bool {
	start := v.i
	for v.i < len(v.b) && v.b[v.i] >= '0' && v.b[v.i] <= '9' {
		v.i++
	}
	return v.i > start
}
